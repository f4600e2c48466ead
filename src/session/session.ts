import type { PtyExit } from '../pty/pty-handle.js';
import type { ScreenReader } from '../screen/screen.js';
import type { SettleSource } from '../screen/settle.js';
import type { SessionInfo } from '../shared/contract/session-info.js';
import type { SettleLabel, Snapshot } from '../shared/contract/snapshot.js';
import { sessionClosedError, type TerminalError } from '../shared/errors.js';
import { ActionQueue } from './action-queue.js';
import { InputGate } from './input-gate.js';
import { Presence } from './presence.js';
import { ProgramWatch } from './program-watch.js';
import { Readiness } from './readiness.js';
import { openSessionFiles, type SessionFiles } from './session-files.js';
import { DEFAULT_READY_QUIET_MS, type SessionDeps, type SessionSpec } from './session-spec.js';
import { SessionTerminal } from './session-terminal.js';
import {
  buildInfo,
  buildSnapshot,
  type SessionStatus,
  sessionExitedError,
} from './session-view.js';
import { whenStartupOver } from './startup-close.js';

/** The wire types a session produces, derived from the tool schemas (shared/contract/). */
export type { SessionDeps, SessionInfo, SessionSpec, SessionStatus, Snapshot };

export class Session implements SettleSource {
  readonly id: string;
  readonly command: string | null;
  readonly cwd: string;
  readonly pid: number;
  readonly ttyPath: string;
  readonly startedAt = new Date();
  readonly queue = new ActionQueue();
  /** People attached to the session and whether one typed (agent-tty attach). */
  readonly presence = new Presence();
  /** Who may type now, and how much: the agent's batches and the people attached. */
  readonly input: InputGate;
  /** When the program is ready for input (session/readiness.ts). */
  readonly readiness: Readiness;
  /** The screen, read-only: its text, cursor, modes, history and marks. */
  readonly screen: ScreenReader;
  private readonly _term: SessionTerminal;
  private readonly _watch: ProgramWatch;
  private readonly _files: SessionFiles;
  private _status: SessionStatus = 'running';
  private _exit: PtyExit | undefined;
  private _closed = false;
  private _closing: Promise<void> | undefined;
  /** Set as close begins (input stops), before a wait for the shell's start-up (startup-close.ts). */
  private _closeBegun = false;
  private readonly _exitListeners = new Set<() => void>();
  private _hasSentInput = false;
  /** commandMarkSeq when input was last sent. */
  private _inputMarkSeq = 0;

  /** Spawns the program; throws SPAWN_FAILED and leaves nothing behind when it cannot. */
  constructor(
    spec: SessionSpec,
    private readonly _deps: SessionDeps,
  ) {
    const { id, plan } = spec;
    this.id = id;
    this.command = plan.command;
    this.cwd = plan.cwd;
    const files = openSessionFiles(spec, _deps);
    const launch = files.integration?.launch ?? plan;
    const env = files.history ? { ...launch.env, HISTFILE: files.history.file } : launch.env;
    const owner = {
      spawn: _deps.spawn,
      logger: _deps.logger,
      isLive: () => this._isLive(),
      markInput: () => this._watch.markInput(),
      onExit: (exit: PtyExit) => this._onExit(exit),
    };
    const terminal = {
      ...spec,
      ...launch,
      env,
      cwd: plan.cwd,
      shell: plan.file,
      command: plan.command,
    };
    try {
      this._term = new SessionTerminal(terminal, files, owner);
    } catch (err) {
      files.remove();
      throw err;
    }
    this._files = files;
    this.screen = this._term.screen;
    const { pty } = this._term;
    this.pid = pty.pid;
    this.ttyPath = pty.ttyPath;
    this._watch = new ProgramWatch(pty.pid, pty.ttyPath, _deps.inputWaitProbe !== false, () =>
      this._isLive(),
    );
    this.input = new InputGate(id, pty, {
      isOpen: () => this._isLive() && !this._closeBegun,
      deliver: (data) => this._deliver(data),
      onPersonInput: () => this.presence.markTyped(),
    });
    this.readiness = new Readiness(this, {
      startedAt: performance.now(),
      quietMs: _deps.readyQuietMs ?? DEFAULT_READY_QUIET_MS,
    });
  }

  get status(): SessionStatus {
    return this._status;
  }
  get isClosed(): boolean {
    return this._closed;
  }
  /** Path of the asciicast recording, when the session is recorded. */
  get recording(): string | undefined {
    return this._term.recording;
  }
  /** Why the session is not recorded although recording was asked for. */
  get recordingError(): string | undefined {
    return this._term.recordingError;
  }
  /** Whether the session's shell was started with command marks (shell-integration.ts). */
  get hasCommandMarks(): boolean {
    return this._files.integration !== undefined;
  }
  /** commandMarkSeq when input was last sent: marks after it came after that input. */
  get inputMarkSeq(): number {
    return this._inputMarkSeq;
  }
  /** Whether any input (the agent's or a person's) has been sent to the program. */
  get hasSentInput(): boolean {
    return this._hasSentInput;
  }
  /** Bytes of output received so far. */
  get outputBytes(): number {
    return this._term.outputBytes;
  }
  /** Input bytes sent that the terminal has not taken yet. */
  get pendingInputBytes(): number {
    return this._term.pty.pendingInputBytes;
  }

  // What settlement, readiness, early stop and waits read (settle.ts, readiness.ts, wait.ts).
  get parseCount(): number {
    return this.screen.parseCount;
  }
  get lastParsedAt(): number {
    return this.screen.lastParsedAt;
  }
  get pendingBytes(): number {
    return this.screen.pendingBytes;
  }
  get detectsInputWait(): boolean {
    return this._watch.detects;
  }
  readonly fingerprint = () => this.screen.fingerprint();
  readonly isSynchronizedUpdate = () => this.screen.isSynchronizedUpdate();
  readonly isFinal = () => this._status === 'exited' || this._closed;
  readonly isReady = () => this.readiness.isReady();
  readonly startupLeftMs = () => this.readiness.startupLeftMs();
  readonly hasPromptMark = () => this.screen.commandMarks.some((mark) => mark.kind === 'A');
  readonly hasText = () =>
    this.screen.historyTotal > 0 || this.screen.rowTexts().some((r) => r.text !== '');
  readonly isWaitingForInput = () => this._watch.isWaiting();
  readonly leaderWaitsForInput = () => this._watch.leaderWaits();
  /** Whether the session's interactive shell holds the terminal without reading it. */
  readonly shellBetweenCommands = () => this.command === null && this._watch.shellBetweenCommands();
  readonly inputWait = () => this._watch.inputWait();
  readonly othersIdle = () => this._watch.othersIdle();
  readonly foregroundCpuMs = () => this._watch.foregroundCpuMs();
  /** The terminal's foreground process when it is not the session's own program. */
  readonly foreground = () => this._watch.foreground();
  readonly confirmInputWait = () => this._watch.confirm(this._term.pty, this.screen);
  /** Calls `listener` on parsed output, resize, exit and close; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void {
    const off = this._term.screen.subscribe(listener);
    this._exitListeners.add(listener);
    return () => {
      off();
      this._exitListeners.delete(listener);
    };
  }

  /** The screen now, after a settle wait that ended as `observed` ('none': none ran). */
  snapshot(observed: SettleLabel, scrollbackLines = 0): Snapshot {
    const screen = this.screen;
    return buildSnapshot(observed, this._programFacts(), {
      grid: screen.grid(),
      modes: screen.modes(),
      title: screen.title,
      quietMs: screen.quietMs(),
      historyTotal: screen.historyTotal,
      scrollback: scrollbackLines > 0 ? screen.history(scrollbackLines) : undefined,
      // After the scrollback is read: reading it may find a damaged file.
      transcriptError: screen.transcriptError,
      waitingForInput:
        this._watch.detects && this._status === 'running' ? this.isWaitingForInput() : undefined,
    });
  }

  info(): SessionInfo {
    return buildInfo(this, this._programFacts());
  }

  private _programFacts() {
    return { status: this._status, exit: this._exit, foreground: this.foreground() };
  }

  /** Sends the agent's bytes to the program (input.ts's gate); SESSION_EXITED once it has exited. */
  send(data: Uint8Array): void {
    this.assertRunning();
    this.input.fromAgent(data);
  }

  private _deliver(data: Uint8Array): void {
    this._hasSentInput = true;
    this._watch.markInput();
    this._inputMarkSeq = this.screen.commandMarkSeq;
    this._term.write(data);
  }

  /** Resizes screen and PTY together, after parsing what arrived at the old size. */
  async resize(cols: number, rows: number): Promise<void> {
    this.assertRunning();
    await this.screen.whenParsed();
    this.assertRunning();
    this._term.resize(cols, rows);
  }

  assertOpen(): void {
    if (this._closed || this._closeBegun) throw this.closedError();
  }

  assertRunning(): void {
    this.assertOpen();
    if (this._status === 'exited') throw this.exitedError();
  }

  /** SESSION_CLOSED for this session. */
  closedError(): TerminalError {
    return sessionClosedError(this.id);
  }

  /** SESSION_EXITED for this session; `waitingFor` names what a wait was waiting for. */
  exitedError(waitingFor?: string): TerminalError {
    return sessionExitedError(this.info(), this._exit, waitingFor);
  }

  /**
   * Removes the session's private files (shell history, shell start-up files, transcript) now,
   * synchronously: for a server exiting before close finished, once its processes are killed.
   */
  removePrivateFiles(): void {
    this._files.remove();
    this._term.screen.releaseTranscript();
  }

  /**
   * Cancels pending work, ends every process of the terminal's session, releases everything.
   * With `startupWait`, an interactive shell not ready yet first finishes its start-up (at most
   * STARTUP_CLOSE_WAIT_MS), unless that signal aborts (a shutdown).
   */
  close(options: { startupWait?: AbortSignal | undefined } = {}): Promise<void> {
    this._closing ??= this._close(options.startupWait);
    return this._closing;
  }

  private async _close(startupWait: AbortSignal | undefined): Promise<void> {
    this._closeBegun = true;
    this.queue.close(this.closedError());
    if (startupWait) await whenStartupOver(this, startupWait);
    this._closed = true;
    for (const listener of this._exitListeners) listener();
    try {
      const { terminate, terminateOptions, logger } = this._deps;
      const { survivors } = await terminate(this.pid, this.ttyPath, terminateOptions);
      const left = survivors.length;
      if (left > 0) logger.warn(`session ${this.id}: ${left} process(es) survived SIGKILL`);
    } finally {
      this._watch.dispose();
      this._term.dispose();
      // After the processes are gone: a shell writes its history as it exits.
      this.removePrivateFiles();
    }
  }

  private _isLive(): boolean {
    return this._status === 'running' && !this._closed;
  }

  private _onExit(exit: PtyExit): void {
    void this.screen.whenParsed().then(() => {
      if (this._closed) return;
      this._exit = exit;
      this._status = 'exited';
      this._term.exited(exit);
      for (const listener of this._exitListeners) listener();
    });
  }
}
