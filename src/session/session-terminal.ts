/**
 * A session's terminal: the program's PTY joined to its emulated Screen and, when asked for, its
 * recording. Output goes to the screen and the recording in the order it came; the screen's
 * replies to probes and its back-pressure go to the PTY; input is written and recorded; a resize
 * changes the screen, the PTY and the recording together. Spawning throws SPAWN_FAILED and
 * leaves no screen behind.
 */

import type { PtyEvents, PtyExit, PtyHandle, SpawnOptions } from '../pty/pty-handle.js';
import { Screen } from '../screen/screen.js';
import type { Logger } from '../shared/log.js';
import { Recorder } from './recorder.js';
import type { SessionFiles } from './session-files.js';

export interface TerminalSpec {
  readonly id: string;
  /** What runs: the shell's launch with its start-up files when it has command marks. */
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly cols: number;
  readonly rows: number;
  readonly scrollbackLines: number;
  /** For the recording's header: the command asked for (null: a shell), and the shell. */
  readonly command: string | null;
  readonly shell: string;
  readonly recordDir?: string | undefined;
}

/** What the terminal asks of its session. */
export interface TerminalOwner {
  readonly spawn: (options: SpawnOptions, events: PtyEvents) => PtyHandle;
  readonly logger: Logger;
  /** Whether the program runs and the session is open (replies go only to a live program). */
  isLive(): boolean;
  /** Called just before a reply is written: it is input the program has not read yet. */
  markInput(): void;
  onExit(exit: PtyExit): void;
}

export class SessionTerminal {
  readonly screen: Screen;
  readonly pty: PtyHandle;
  private readonly _recorder: Recorder | undefined;
  /** Why the session is not recorded although recording was asked for. */
  readonly recordingError: string | undefined;
  private _outputBytes = 0;

  constructor(spec: TerminalSpec, files: SessionFiles, owner: TerminalOwner) {
    let pty: PtyHandle | undefined;
    const { transcript, integration } = files;
    const screen = new Screen({
      cols: spec.cols,
      rows: spec.rows,
      scrollback: spec.scrollbackLines,
      transcriptBytes: transcript.limitBytes,
      transcriptStore: transcript.store,
      transcriptError: transcript.error,
      onReply: (data) => {
        if (!owner.isLive()) return;
        // A reply is input too: the program has not read it until it has run again. Marked
        // before the write, as the program may read it and sleep again before the write returns.
        pty?.reply(data, () => owner.markInput());
      },
      onPressure: (high) => (high ? pty?.pause() : pty?.resume()),
      commandMarkNonce: integration?.nonce,
      // The shell has read its startup files by its first mark: nothing of them is needed.
      onCommandMark: () => integration?.remove(),
    });
    const { file, cwd, cols, rows } = spec;
    try {
      pty = owner.spawn(
        { file, args: [...spec.args], cwd, env: { ...spec.env }, cols, rows },
        {
          onData: (chunk) => {
            this._outputBytes += chunk.length;
            screen.write(chunk);
            this._recorder?.output(chunk);
          },
          onExit: (exit) => owner.onExit(exit),
        },
      );
    } catch (err) {
      screen.dispose();
      throw err;
    }
    this.screen = screen;
    this.pty = pty;
    if (spec.recordDir !== undefined) {
      const header = { cols, rows, command: spec.command, shell: spec.shell };
      const opened = Recorder.open(
        spec.recordDir,
        spec.id,
        header,
        owner.logger,
        integration?.nonce,
      );
      this._recorder = opened.recorder;
      this.recordingError = opened.error;
    }
  }

  /** Path of the asciicast recording, when the session is recorded. */
  get recording(): string | undefined {
    return this._recorder?.path;
  }

  /** Bytes of output received so far. */
  get outputBytes(): number {
    return this._outputBytes;
  }

  /** Writes input to the program, and to the recording. */
  write(data: Uint8Array): void {
    this.pty.write(data);
    this._recorder?.input(data);
  }

  /** Resizes the screen, the PTY and the recording (after parsing what came at the old size). */
  resize(cols: number, rows: number): void {
    this.screen.resize(cols, rows);
    this.pty.resize(cols, rows);
    this._recorder?.resize(cols, rows);
  }

  /** The program has exited and its output is parsed. */
  exited(exit: PtyExit): void {
    this._recorder?.exit(exit.exitCode, exit.signal);
  }

  dispose(): void {
    this.pty.dispose();
    this.screen.dispose();
    this._recorder?.close();
  }
}
