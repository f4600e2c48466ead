/**
 * Records a session as an asciicast v2 file that `asciinema play` replays: a header, then output
 * ("o"), input ("i") and resize ("r") events with their time. The file holds everything typed,
 * passwords included, so it is created private to the user (src/shared/private-files.ts). A recording
 * never fails a session: the file is opened before the session is reported, a file that cannot
 * be created is an error the caller reports, and a write that fails later is logged once and
 * ends the recording. A secret of the session's (its command-mark nonce, which a program that
 * could read the file while the session runs could use to forge marks) is written as x's.
 * @see https://docs.asciinema.org/manual/asciicast/v2/
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../shared/log.js';
import { createPrivateFile, makePrivateDir } from '../shared/private-files.js';

export interface RecordingHeader {
  readonly cols: number;
  readonly rows: number;
  readonly command: string | null;
  readonly shell: string;
}

export class Recorder {
  private readonly _started = performance.now();
  private readonly _output = new TextDecoder('utf-8');
  private readonly _input = new TextDecoder('utf-8');
  private _stream: WriteStream | undefined;
  /** The end of the output so far that may begin the secret, written with what follows it. */
  private _held = '';

  private constructor(
    readonly path: string,
    stream: WriteStream,
    private readonly _logger: Logger,
    private readonly _secret: string,
  ) {
    this._stream = stream;
    stream.on('error', (err) => {
      this._logger.warn(`recording ${path} stopped: ${err.message}`);
      this._stream = undefined;
    });
  }

  /**
   * A session's recording in `dir`, or why there is none although one was asked for: the
   * session then runs unrecorded, its results say so instead of naming a path, and it is logged.
   */
  static open(
    dir: string,
    sessionId: string,
    header: RecordingHeader,
    logger: Logger,
    secret?: string,
  ): { recorder?: Recorder; error?: string } {
    try {
      return { recorder: Recorder.start(dir, sessionId, header, logger, secret) };
    } catch (err) {
      const error = (err as Error).message;
      logger.warn(`session ${sessionId} is not recorded: ${error}`);
      return { error };
    }
  }

  /**
   * Starts a recording in `dir` (created 0700 when missing) as a new 0600 file, open when this
   * returns; throws, naming the directory and the errno, when it cannot be created.
   */
  static start(
    dir: string,
    sessionId: string,
    header: RecordingHeader,
    logger: Logger,
    secret = '',
  ): Recorder {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const path = join(dir, `agent-tty-${stamp}-${sessionId}.cast`);
    let fd: number;
    try {
      makePrivateDir(dir);
      fd = createPrivateFile(path);
    } catch (err) {
      throw new Error(`cannot create a recording in ${dir}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const recorder = new Recorder(path, createWriteStream(path, { fd }), logger, secret);
    recorder._line({
      version: 2,
      width: header.cols,
      height: header.rows,
      timestamp: Math.floor(Date.now() / 1000),
      title: header.command ?? header.shell,
      ...(header.command !== null ? { command: header.command } : {}),
      env: { TERM: 'xterm-256color', SHELL: header.shell },
    });
    return recorder;
  }

  output(data: Uint8Array): void {
    this._event('o', this._redact(this._output.decode(data, { stream: true })));
  }

  input(data: Uint8Array): void {
    this._event('i', this._input.decode(data, { stream: true }));
  }

  resize(cols: number, rows: number): void {
    this._event('r', `${cols}x${rows}`);
  }

  /**
   * Marks the program's exit (an asciicast marker, `exit 3` or `exit signal SIGTERM`), after the
   * output so far, so a recording says how it ended (`agent-tty test --from-recording`).
   */
  exit(exitCode: number | null, signal: string | null): void {
    const rest = this._redact(this._output.decode(undefined, { stream: true })) + this._held;
    this._held = '';
    if (rest) this._event('o', rest);
    if (signal) this._event('m', `exit signal ${signal}`);
    else if (exitCode !== null) this._event('m', `exit ${exitCode}`);
  }

  close(): void {
    const rest = this._redact(this._output.decode()) + this._held;
    if (rest) this._event('o', rest);
    this._stream?.end();
    this._stream = undefined;
  }

  /** `text` after what was held, the secret replaced, less an end that may begin the secret. */
  private _redact(text: string): string {
    const secret = this._secret;
    if (secret === '') return text;
    let out = (this._held + text).replaceAll(secret, 'x'.repeat(secret.length));
    this._held = '';
    for (let n = Math.min(secret.length - 1, out.length); n > 0; n--) {
      if (secret.startsWith(out.slice(-n))) {
        this._held = out.slice(-n);
        out = out.slice(0, -n);
        break;
      }
    }
    return out;
  }

  private _event(kind: 'o' | 'i' | 'r' | 'm', data: string): void {
    if (!this._stream || data === '') return;
    const seconds = Math.round(performance.now() - this._started) / 1000;
    this._line([seconds, kind, data]);
  }

  private _line(value: unknown): void {
    this._stream?.write(`${JSON.stringify(value)}\n`);
  }
}
