/**
 * The bound on a server's attach connections: at most `max` open at once. A connection past it
 * is told so in one line, not dropped: a dropped connection reads to the person like a server
 * that died. What it sends is read and dropped until it closes (closing with unread data would
 * reset the connection and lose the line at the other end), for at most REFUSED_LINGER_MS; past
 * `max` such refusals at once, the connection is closed without a line.
 * @see spec/attach.md
 */
import type { Socket } from 'node:net';
import { encode } from './protocol.js';

export const MAX_CONNECTIONS = 32;
/** How long a connection refused at the limit may stay to read its one line. */
export const REFUSED_LINGER_MS = 1000;

export class ConnectionLimit {
  private _open = 0;
  private _refusing = 0;

  constructor(private readonly _max: number = MAX_CONNECTIONS) {}

  /** Connections admitted and not yet closed. */
  get open(): number {
    return this._open;
  }

  /** Counts `socket` in until it closes, or refuses it (and returns false) at the limit. */
  admit(socket: Socket): boolean {
    if (this._open >= this._max) {
      this._refuse(socket);
      return false;
    }
    this._open++;
    socket.once('close', () => this._open--);
    return true;
  }

  private _refuse(socket: Socket): void {
    socket.on('error', () => {});
    if (this._refusing >= this._max) {
      socket.destroy();
      return;
    }
    this._refusing++;
    const timer = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      this._refusing--;
    });
    socket.resume();
    socket.end(
      encode({
        type: 'end',
        reason: 'error',
        message: `agent-tty server ${process.pid} has ${this._max} attach connections open, its limit; detach one and try again`,
      }),
    );
  }
}
