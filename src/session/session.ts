/**
 * One terminal session: a program in a PTY, its emulated Screen and its ActionQueue. Lifecycle
 * running → exited → closed. Reports `exited` only once every byte the program wrote is parsed,
 * so the first exited snapshot shows its last output. Closing ends every process of the
 * terminal's session and releases the PTY and the screen.
 */

import { type ForegroundProcess, foregroundProcess } from '../pty/foreground.js';
import { createInputWaitProbe, type InputWait, type InputWaitProbe } from '../pty/input-wait.js';
import type { PtyEvents, PtyExit, PtyHandle, SpawnOptions } from '../pty/spawn.js';
import type { TerminateOptions, TerminateReport } from '../pty/terminate.js';
import type { CommandMark } from '../screen/command-marks.js';
import type { HistorySlice, RowText } from '../screen/lines.js';
import { Screen } from '../screen/screen.js';
import { type SettleResult, type SettleSource, waitForSettle } from '../screen/settle.js';
import type { TerminalModes } from '../screen/terminal-modes.js';
import { makeTextSafe } from '../screen/text-safety.js';
import type { EncodedSlice } from '../screen/transcript.js';
import { DEFAULT_CONFIG, LIMITS } from '../shared/config.js';
import type { SessionInfo } from '../shared/contract/session-info.js';
import type { SettleLabel, Snapshot } from '../shared/contract/snapshot.js';
import { sessionClosedError, TerminalError } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';
import { ActionQueue } from './action-queue.js';
import type { LaunchPlan } from './launch.js';
import type { ObserveOptions } from './observation.js';
import { Presence } from './presence.js';
import { Readiness } from './readiness.js';
import { Recorder } from './recorder.js';
import { createSessionHistory, type SessionHistory } from './shell-history.js';
import { createShellIntegration, type ShellIntegration } from './shell-integration.js';
import { placeTranscript } from './transcript-files.js';

export type SessionStatus = Snapshot['status'];

/** The wire types a session produces, derived from the tool schemas (shared/contract/). */
export type { SessionInfo, Snapshot };

export interface SessionDeps {
  readonly spawn: (options: SpawnOptions, events: PtyEvents) => PtyHandle;
  readonly terminate: (
    sid: number,
    ttyPath: string,
    options: TerminateOptions,
  ) => Promise<TerminateReport>;
  readonly terminateOptions: TerminateOptions;
  readonly logger: Logger;
  /** false turns the input-wait signal off (settlement then uses the quiet interval only). */
  readonly inputWaitProbe?: boolean;
  /** false: interactive bash, zsh and fish start as they are, without command marks. */
  readonly commandMarks?: boolean;
  /** Quiet after its first text that makes a program ready (the default quiet interval). */
  readonly readyQuietMs?: number;
  /** Where the transcript's files go (session/transcript-files.ts); none: kept in memory. */
  readonly transcriptDir?: string;
}

export interface SessionSpec {
  readonly id: string;
  readonly plan: LaunchPlan;
  readonly cols: number;
  readonly rows: number;
  readonly scrollbackLines: number;
  /** Bytes of history lines the session's transcript keeps (the server's default when absent). */
  readonly transcriptBytes?: number | undefined;
  /** Directory to record an asciicast file in, when the session is recorded. */
  readonly recordDir?: string | undefined;
}

/** Quiet after its first text that makes a program ready, unless the deps say otherwise. */
const DEFAULT_READY_QUIET_MS = 250;

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
  private readonly _screen: Screen;
  private readonly _pty: PtyHandle;
  private readonly _probe: InputWaitProbe | undefined;
  private readonly _recorder: Recorder | undefined;
  private readonly _history: SessionHistory | undefined;
  private readonly _integration: ShellIntegration | undefined;
  /** commandMarkSeq when input was last sent. */
  private _inputMarkSeq = 0;
  private readonly _recordingError: string | undefined;
  private _status: SessionStatus = 'running';
  private _exit: PtyExit | undefined;
  private _closed = false;
  private _closing: Promise<void> | undefined;
  private readonly _exitListeners = new Set<() => void>();
  private _rowsCache: { key: string; rows: readonly string[] } | undefined;
  /** While the agent's batch sends a run of actions: what a person typed meanwhile, in order. */
  private _heldFromPerson: Uint8Array[] | undefined;
  private _heldBytes = 0;
  /** What the running batch was checked for and has not sent yet: room a person cannot take. */
  private _claimedBytes = 0;
  private _resizes = 0;
  /** When the program is ready for input (session/readiness.ts). */
  readonly readiness: Readiness;
  private _outputBytes = 0;
  private _hasSentInput = false;

  /** Spawns the program; throws SPAWN_FAILED and leaves nothing behind when it cannot. */
  constructor(
    spec: SessionSpec,
    private readonly _deps: SessionDeps,
  ) {
    this.id = spec.id;
    this.command = spec.plan.command;
    this.cwd = spec.plan.cwd;
    let pty: PtyHandle | undefined;
    this._integration =
      _deps.commandMarks === false ? undefined : openIntegration(spec, _deps.logger);
    const launch = this._integration?.launch ?? spec.plan;
    const transcriptBytes = spec.transcriptBytes ?? DEFAULT_CONFIG.transcriptBytes;
    const transcript =
      _deps.transcriptDir === undefined
        ? { limitBytes: transcriptBytes }
        : placeTranscript(_deps.transcriptDir, spec.id, transcriptBytes);
    if (transcript.error) _deps.logger.warn(`session ${spec.id}: ${transcript.error}`);
    this._screen = new Screen({
      cols: spec.cols,
      rows: spec.rows,
      scrollback: spec.scrollbackLines,
      transcriptBytes: transcript.limitBytes,
      transcriptStore: transcript.store,
      transcriptError: transcript.error,
      onReply: (data) => {
        if (this._status !== 'running' || this._closed) return;
        // A reply is input too: the program has not read it until it has run again. Marked
        // before the write, as the program may read it and sleep again before the write returns.
        pty?.reply(data, () => this._probe?.markInput());
      },
      onPressure: (high) => (high ? pty?.pause() : pty?.resume()),
      commandMarkNonce: this._integration?.nonce,
      // The shell has read its startup files by its first mark: nothing of them is needed.
      onCommandMark: () => this._integration?.remove(),
    });
    this._history = spec.plan.sessionHistory ? openHistory(spec.id, _deps.logger) : undefined;
    try {
      pty = _deps.spawn(
        {
          file: launch.file,
          args: [...launch.args],
          cwd: spec.plan.cwd,
          env: this._history ? { ...launch.env, HISTFILE: this._history.file } : { ...launch.env },
          cols: spec.cols,
          rows: spec.rows,
        },
        {
          onData: (chunk) => {
            this._outputBytes += chunk.length;
            this._screen.write(chunk);
            this._recorder?.output(chunk);
          },
          onExit: (exit) => this._onExit(exit),
        },
      );
    } catch (err) {
      this._screen.dispose();
      this._history?.remove();
      this._integration?.remove();
      throw err;
    }
    this._pty = pty;
    this.pid = pty.pid;
    this.ttyPath = pty.ttyPath;
    if (spec.recordDir !== undefined) {
      try {
        this._recorder = Recorder.start(
          spec.recordDir,
          spec.id,
          { cols: spec.cols, rows: spec.rows, command: spec.plan.command, shell: spec.plan.file },
          _deps.logger,
          this._integration?.nonce,
        );
      } catch (err) {
        // The session runs unrecorded; its results say so instead of naming a path.
        this._recordingError = (err as Error).message;
        _deps.logger.warn(`session ${spec.id} is not recorded: ${this._recordingError}`);
      }
    }
    this._probe =
      _deps.inputWaitProbe === false ? undefined : createInputWaitProbe(pty.pid, pty.ttyPath);
    this.readiness = new Readiness(this, {
      startedAt: performance.now(),
      quietMs: _deps.readyQuietMs ?? DEFAULT_READY_QUIET_MS,
    });
  }

  /** The terminal's foreground process when it is not the session's own program. */
  foreground(): ForegroundProcess | undefined {
    if (this._status !== 'running' || this._closed) return undefined;
    const found = foregroundProcess(this.pid);
    // The shell itself reading the terminal is in the foreground, whatever its group holds (fish
    // runs background jobs in its own group).
    if (found && this.leaderWaitsForInput()) return undefined;
    // A program names itself (prctl): shown with the stand-ins of screen text.
    return found && { pid: found.pid, command: makeTextSafe(found.command) };
  }

  private _foregroundField(): { foreground?: ForegroundProcess } {
    const found = this.foreground();
    return found ? { foreground: found } : {};
  }

  // ReadinessSource
  get outputBytes(): number {
    return this._outputBytes;
  }
  foregroundCpuMs(): number | undefined {
    return this._status === 'running' && !this._closed ? this._probe?.foregroundCpuMs() : undefined;
  }
  hasPromptMark(): boolean {
    return this._screen.commandMarks.some((mark) => mark.kind === 'A');
  }
  hasText(): boolean {
    return this._screen.historyTotal > 0 || this._screen.rowTexts().some((r) => r.text !== '');
  }
  /** Whether the program is ready (latched; session/readiness.ts). SettleSource. */
  isReady(): boolean {
    return this.readiness.isReady();
  }

  /** Path of the asciicast recording, when the session is recorded. */
  get recording(): string | undefined {
    return this._recorder?.path;
  }

  /** Why the session is not recorded although recording was asked for. */
  get recordingError(): string | undefined {
    return this._recordingError;
  }

  get status(): SessionStatus {
    return this._status;
  }

  get isClosed(): boolean {
    return this._closed;
  }

  get cols(): number {
    return this._screen.cols;
  }

  get rows(): number {
    return this._screen.rows;
  }

  // SettleSource
  fingerprint(): string {
    return this._screen.fingerprint();
  }
  get parseCount(): number {
    return this._screen.parseCount;
  }
  get lastParsedAt(): number {
    return this._screen.lastParsedAt;
  }
  get pendingBytes(): number {
    return this._screen.pendingBytes;
  }
  isSynchronizedUpdate(): boolean {
    return this._screen.isSynchronizedUpdate();
  }
  isFinal(): boolean {
    return this._status === 'exited' || this._closed;
  }
  isWaitingForInput(): boolean {
    return this._status === 'running' && !this._closed && this._probe?.isWaiting() === true;
  }
  /** Whether the session's own program (its shell) waits for input, whatever else runs. */
  leaderWaitsForInput(): boolean {
    return this._status === 'running' && !this._closed && this._probe?.leaderWaits() === true;
  }
  /** Whether this session can tell when its program waits for input (Linux; probe on). */
  get detectsInputWait(): boolean {
    return this._probe !== undefined;
  }
  /**
   * The foreground program's wait for input (how long it may last, the CPU its group used), or
   * undefined when it does not wait (or this cannot be told).
   */
  inputWait(): InputWait | undefined {
    if (this._status !== 'running' || this._closed) return undefined;
    return this._probe?.inputWait();
  }
  /** Whether nothing else in the terminal's session can print on its own (see the probe). */
  othersIdle(): boolean {
    return this._status === 'running' && !this._closed && this._probe?.othersIdle() === true;
  }
  /** Input bytes sent that the terminal has not taken yet. */
  get pendingInputBytes(): number {
    return this._pty.pendingInputBytes;
  }
  async confirmInputWait(): Promise<boolean> {
    if (!this.isWaitingForInput()) return false;
    if (!(await this._pty.barrier())) return false;
    await this._screen.whenParsed();
    return this.isWaitingForInput();
  }
  subscribe(listener: () => void): () => void {
    const off = this._screen.subscribe(listener);
    this._exitListeners.add(listener);
    return () => {
      off();
      this._exitListeners.delete(listener);
    };
  }

  modes(): TerminalModes {
    return this._screen.modes();
  }

  rowTexts(): RowText[] {
    return this._screen.rowTexts();
  }

  region(row: number, column: number, rows: number, cols: number): string[] {
    return this._screen.region(row, column, rows, cols);
  }

  /** Plain text of `cols` cells of a row from `column`, both 0-based, as a watcher draws it. */
  drawnText(row: number, column: number, cols: number): string {
    return this._closed ? '' : this._screen.drawnText(row, column, cols);
  }

  /** Lines that scrolled off the top of the screen: screen row r is line historyTotal + r. */
  get historyTotal(): number {
    return this._screen.historyTotal;
  }

  /** Whether the session's shell was started with command marks (shell-integration.ts). */
  get hasCommandMarks(): boolean {
    return this._integration !== undefined;
  }

  /** The shell's command marks so far, oldest first (screen/command-marks.ts). */
  get commandMarks(): readonly CommandMark[] {
    return this._screen.commandMarks;
  }

  /** Seq of the last command mark parsed (0 before the first). */
  get commandMarkSeq(): number {
    return this._screen.commandMarkSeq;
  }

  /** commandMarkSeq when input was last sent: marks after it came after that input. */
  get inputMarkSeq(): number {
    return this._inputMarkSeq;
  }

  /** Whether any input (the agent's or a person's) has been sent to the program. */
  get hasSentInput(): boolean {
    return this._hasSentInput;
  }

  /** The cursor's line in the one line numbering, and its column. */
  cursorLine(): { line: number; column: number } {
    return this._screen.cursorLine();
  }

  /**
   * Transcript lines after line `since` up to line `end` (default: historyTotal): at most
   * `maxLines` and, past the first, at most `maxBytes` of UTF-8 text.
   */
  historySince(
    since: number,
    maxLines: number,
    maxBytes: number = LIMITS.maxHistoryPageBytes,
    end?: number,
  ): HistorySlice {
    return this._screen.historySince(since, maxLines, maxBytes, end);
  }

  /** As historySince, the lines as one copy of their UTF-8 bytes, for a search in a worker. */
  historyBytes(since: number, maxLines: number, maxBytes: number, end: number): EncodedSlice {
    return this._screen.historyBytes(since, maxLines, maxBytes, end);
  }

  /** What the transcript holds (for measurements and tests). */
  transcriptStats(): { keptBytes: number; allocatedBytes: number; dropped: number } {
    return this._screen.transcriptStats();
  }

  /** SESSION_CLOSED for this session. */
  closedError(): TerminalError {
    return sessionClosedError(this.id);
  }

  /** Resolves once output received so far has been parsed (modes are then current). */
  whenParsed(): Promise<void> {
    return this._screen.whenParsed();
  }

  /**
   * Waits until the screen settles (see screen/settle.ts); within the start-up window, quiet
   * counts only once the program is ready.
   */
  async settle(options: ObserveOptions): Promise<SettleResult> {
    this.assertOpen();
    const startupLeftMs = this.readiness.startupLeftMs();
    const result = await waitForSettle(this, {
      ...options,
      inputGraceMs: this._probe ? options.inputGraceMs : undefined,
      readyTimeoutMs: options.awaitReady && startupLeftMs > 0 ? startupLeftMs : undefined,
    });
    this.assertOpen();
    // Not ready, but with text on the screen (a profile printing, a program redrawing): the
    // screen was still changing or not yet settled, not empty.
    const reason = result.reason === 'starting' && this.hasText() ? 'timeout' : result.reason;
    return { ...result, reason, elapsedMs: Math.round(result.elapsedMs) };
  }

  /** Waits for settlement, then captures a snapshot. */
  async observe(options: ObserveOptions, scrollbackLines = 0): Promise<Snapshot> {
    const result = await this.settle(options);
    return this.snapshot(result.reason, scrollbackLines);
  }

  /**
   * The screen now. `observed` is how a settle wait just ended, or 'none' when none ran: the
   * snapshot then says how long the screen has been quiet. An exited program's screen is final.
   */
  snapshot(observed: SettleLabel, scrollbackLines = 0): Snapshot {
    const { cols, rows, buffer, cursor, screen, styles, spans } = this._screen.grid();
    const modes = this._screen.modes();
    const title = this._screen.title;
    const exited = this._status === 'exited';
    const final = observed === 'none' || observed === 'timeout' || observed === 'starting';
    const settle = exited && final ? 'exited' : observed;
    const tracking = modes.mouseTracking;
    return {
      status: this._status,
      ...exitFields(this._exit),
      settled: settle !== 'none' && settle !== 'timeout' && settle !== 'starting',
      settle,
      ...(settle === 'none' ? { quietMs: this._screen.quietMs() } : {}),
      ...(this._probe && this._status === 'running'
        ? { waitingForInput: this.isWaitingForInput() }
        : {}),
      ...this._foregroundField(),
      ...(title ? { title } : {}),
      cols,
      rows,
      buffer,
      cursor,
      ...(tracking === 'none' ? {} : { mouse: { tracking, encoding: modes.mouseEncoding } }),
      screen: screen.slice(0, shownRows(screen, cursor.row)),
      ...(spans.length > 0 ? { styles, spans } : {}),
      historyTotal: this._screen.historyTotal,
      ...(scrollbackLines > 0 ? { scrollback: this._screen.history(scrollbackLines) } : {}),
    };
  }

  info(): SessionInfo {
    const info: SessionInfo = {
      sessionId: this.id,
      command: this.command,
      cwd: this.cwd,
      cols: this.cols,
      rows: this.rows,
      status: this._status,
      ...exitFields(this._exit),
      pid: this.pid,
      ...this._foregroundField(),
      startedAt: this.startedAt.toISOString(),
      ...(this._recorder ? { recording: this._recorder.path } : {}),
      ...(this._recordingError !== undefined ? { recordingError: this._recordingError } : {}),
    };
    return info;
  }

  /**
   * Refuses, with INPUT_BACKLOG, input that would put more than the limit of bytes in the queue
   * of input the program has not read yet. Checked before a batch sends anything.
   */
  assertInputRoom(bytes: number): void {
    if (this._status !== 'running' || this._closed || this._pty.hasInputRoom(bytes)) return;
    const pendingBytes = this._pty.pendingInputBytes;
    throw new TerminalError(
      'INPUT_BACKLOG',
      `session "${this.id}" holds ${pendingBytes} bytes of input the program has not read, and ${bytes} more would pass the ${LIMITS.maxPendingInputBytes}-byte limit; nothing was sent: wait until the program reads (watch it with terminal_snapshot), send less, or close the session with terminal_close`,
      {
        sessionId: this.id,
        pendingBytes,
        batchBytes: bytes,
        limitBytes: LIMITS.maxPendingInputBytes,
      },
    );
  }

  /**
   * The running batch's input, checked to fit (assertInputRoom): its bytes are claimed until it
   * sends them or ends (releaseInputRoom), so a person typing during its waits cannot take the room.
   */
  claimInputRoom(bytes: number): void {
    this._claimedBytes = bytes;
  }

  releaseInputRoom(): void {
    this._claimedBytes = 0;
  }

  /** Sends the agent's bytes to the program; SESSION_EXITED once it has exited. */
  send(data: Uint8Array): void {
    this.assertRunning();
    this._claimedBytes = Math.max(0, this._claimedBytes - data.length);
    this._deliver(data);
  }

  private _deliver(data: Uint8Array): void {
    this._hasSentInput = true;
    this._probe?.markInput();
    this._inputMarkSeq = this._screen.commandMarkSeq;
    this._pty.write(data);
    this._recorder?.input(data);
  }

  /**
   * Sends what a person attached to the session typed, straight to the program (not through the
   * agent's queue, which may be waiting for what the person's answer brings). Recorded as input
   * like the agent's. False, sending nothing, when the program has exited or the session is closed,
   * or when it would pass the limit of input the program has not read (INPUT_BACKLOG's), counting
   * what is held and what the running batch has claimed.
   */
  sendFromPerson(data: Uint8Array): boolean {
    if (
      this._status !== 'running' ||
      this._closed ||
      !this._pty.hasInputRoom(this._claimedBytes + this._heldBytes + data.length)
    ) {
      return false;
    }
    this.presence.markTyped();
    if (this._heldFromPerson) {
      this._heldFromPerson.push(data);
      this._heldBytes += data.length;
    } else {
      this._deliver(data);
    }
    return true;
  }

  /**
   * The agent's batch starts sending a run of actions (everything between two of its waits): a
   * person's input is held until endAgentRun, so it never lands between, say, the agent's text and
   * its Enter. Held input counts against the same limit of input the program has not read.
   */
  beginAgentRun(): void {
    this._heldFromPerson ??= [];
  }

  /** The run is sent (or the batch stopped): what a person typed meanwhile goes to the program. */
  endAgentRun(): void {
    const held = this._heldFromPerson;
    this._heldFromPerson = undefined;
    this._heldBytes = 0;
    if (!held || this._status !== 'running' || this._closed) return;
    for (const data of held) this._deliver(data);
  }

  /**
   * Each screen row as the sequences that draw it (screen.ts serializeRows): for watchers. Kept
   * until the screen next changes (output parsed, a resize), so several watchers share one.
   */
  serializeRows(): readonly string[] {
    if (this._closed) return [];
    const key = `${this._screen.parseCount}:${this._resizes}`;
    if (this._rowsCache?.key !== key) {
      this._rowsCache = { key, rows: this._screen.serializeRows() };
    }
    return this._rowsCache.rows;
  }

  /** The cursor on the screen, 0-based, and whether it is shown. */
  cursor(): { row: number; column: number; visible: boolean } {
    return { ...this._screen.cursorPosition(), visible: this.modes().cursorVisible };
  }

  /** How long ago, in ms, the screen last changed (output parsed or a resize). */
  get quietMs(): number {
    return this._screen.quietMs();
  }

  /** Resizes screen and PTY together, after parsing what arrived at the old size. */
  async resize(cols: number, rows: number): Promise<void> {
    this.assertRunning();
    await this._screen.whenParsed();
    this.assertRunning();
    this._screen.resize(cols, rows);
    this._resizes++;
    this._pty.resize(cols, rows);
    this._recorder?.resize(cols, rows);
  }

  assertOpen(): void {
    if (this._closed) throw this.closedError();
  }

  assertRunning(): void {
    this.assertOpen();
    if (this._status === 'exited') throw this.exitedError();
  }

  /** SESSION_EXITED for this session; `waitingFor` names what a wait was waiting for. */
  exitedError(waitingFor?: string): TerminalError {
    const during = waitingFor === undefined ? '' : ` while waiting for ${waitingFor}`;
    return new TerminalError(
      'SESSION_EXITED',
      `session "${this.id}" has exited${describeExit(this._exit)}${during}; read its final screen with terminal_snapshot, close it with terminal_close, or start a new one with terminal_start`,
      { ...this.info() },
    );
  }

  /**
   * Removes the session's private directories (its shell history, its shell start-up files) now,
   * synchronously: for a server exiting before close finished, once its processes are killed.
   */
  removePrivateFiles(): void {
    this._history?.remove();
    this._integration?.remove();
    this._screen.releaseTranscript();
  }

  /** Cancels pending work, ends every process of the terminal's session, releases everything. */
  close(): Promise<void> {
    this._closing ??= this._close();
    return this._closing;
  }

  private async _close(): Promise<void> {
    this._closed = true;
    this.queue.close(this.closedError());
    for (const listener of this._exitListeners) listener();
    try {
      const report = await this._deps.terminate(
        this.pid,
        this.ttyPath,
        this._deps.terminateOptions,
      );
      if (report.survivors.length > 0) {
        this._deps.logger.warn(
          `session ${this.id}: ${report.survivors.length} process(es) survived SIGKILL`,
        );
      }
    } finally {
      this._probe?.dispose();
      this._pty.dispose();
      this._screen.dispose();
      this._recorder?.close();
      // After the processes are gone: a shell writes its history as it exits.
      this.removePrivateFiles();
    }
  }

  private _onExit(exit: PtyExit): void {
    void this._screen.whenParsed().then(() => {
      if (this._closed) return;
      this._exit = exit;
      this._status = 'exited';
      this._recorder?.exit(exit.exitCode, exit.signal);
      for (const listener of this._exitListeners) listener();
    });
  }
}

/** The session's history directory; without one, shells keep their own default and it is logged. */
function openHistory(sessionId: string, logger: Logger): SessionHistory | undefined {
  try {
    return createSessionHistory(sessionId);
  } catch (err) {
    logger.warn(
      `session ${sessionId}: no private shell history (${(err as Error).message}); its shells use their default history file`,
    );
    return undefined;
  }
}

/** The shell's startup files with command marks; without them the shell starts as it is. */
function openIntegration(spec: SessionSpec, logger: Logger): ShellIntegration | undefined {
  try {
    return createShellIntegration(spec.id, spec.plan);
  } catch (err) {
    logger.warn(
      `session ${spec.id}: no command marks (${(err as Error).message}); its shell starts without them`,
    );
    return undefined;
  }
}

function exitFields(exit: PtyExit | undefined): { exitCode?: number; signal?: string } {
  if (!exit) return {};
  if (exit.signal) return { signal: exit.signal };
  return exit.exitCode === null ? {} : { exitCode: exit.exitCode };
}

function describeExit(exit: PtyExit | undefined): string {
  if (!exit) return '';
  if (exit.signal) return ` (killed by ${exit.signal})`;
  return ` (exit code ${exit.exitCode})`;
}

/** How many rows a snapshot shows: down to the last row with text, or the cursor's if lower. */
function shownRows(screen: readonly string[], cursorRow: number): number {
  let last = screen.length;
  while (last > cursorRow && screen[last - 1] === '') last--;
  return last;
}
