/**
 * Whether other agent-tty servers listen in this server's socket directory, which decides the
 * form of the attach command it gives: `agent-tty attach t3`, or `t3@PID` when a bare id could
 * name a session of either. The answer is reused for OTHERS_FRESH_MS.
 * @see spec/attach.md (The command)
 */
import { listSockets } from './socket-dir.js';

/** How long the answer to "do other servers listen here?" is reused. */
export const OTHERS_FRESH_MS = 1000;

export class OtherServers {
  private _present = false;
  private _checkedAt: number | undefined;

  constructor(
    private readonly _dir: string,
    private readonly _now: () => number = () => performance.now(),
  ) {}

  /** Whether a socket of another process is in the directory (as of at most OTHERS_FRESH_MS ago). */
  present(): boolean {
    // Listing the directory costs a few system calls a socket; terminal_list asks per session.
    const now = this._now();
    if (this._checkedAt === undefined || now - this._checkedAt > OTHERS_FRESH_MS) {
      this._present = listSockets(this._dir).some((s) => s.pid !== process.pid);
      this._checkedAt = now;
    }
    return this._present;
  }

  /** The command a person runs to attach to `sessionId` of this server. */
  command(sessionId: string): string {
    return formatAttachCommand(sessionId, process.pid, this.present());
  }
}

/** `agent-tty attach t3`, or `agent-tty attach t3@PID` when other servers listen beside it. */
export function formatAttachCommand(sessionId: string, pid: number, others: boolean): string {
  return `agent-tty attach ${others ? `${sessionId}@${pid}` : sessionId}`;
}
