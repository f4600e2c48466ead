/**
 * The private fields of node-pty's terminal object that the adapter reads (node-pty 1.x on Unix):
 * the slave's path, the master descriptor and the read stream over it. Each read is shape-checked
 * and falls back to doing without; node-pty itself is imported only by spawn.ts.
 */
import type { TerminalFd } from './input-writer.js';

/** node-pty's read stream over the master side (a tty.ReadStream). */
interface MasterSocket {
  destroyed: boolean;
  _handle?: unknown;
  destroy: (error?: Error) => unknown;
}

interface Internals {
  ptsName?: unknown;
  fd?: unknown;
  _socket?: unknown;
  destroy?: unknown;
}

function socketOf(pty: object): MasterSocket | undefined {
  const socket = (pty as Internals)._socket;
  return typeof socket === 'object' &&
    socket !== null &&
    typeof (socket as MasterSocket).destroy === 'function'
    ? (socket as MasterSocket)
    : undefined;
}

/** Path of the terminal's slave device (/dev/pts/3); '' when node-pty does not tell. */
export function ptsNameOf(pty: object): string {
  const name = (pty as Internals).ptsName;
  return typeof name === 'string' ? name : '';
}

/**
 * The master side of node-pty's terminal. node-pty reads it through a tty.ReadStream and closes
 * the descriptor only by destroying that stream (at dispose, or on the read error that follows
 * the program's exit), which marks the stream destroyed and drops its handle in the same step.
 */
export function masterOf(pty: object): TerminalFd {
  const fd = (pty as Internals).fd;
  const socket = socketOf(pty);
  return {
    current: () =>
      typeof fd === 'number' && socket !== undefined && !socket.destroyed && socket._handle != null
        ? fd
        : undefined,
  };
}

/**
 * Routes every destroy of node-pty's read stream through `intercept`, which gets the original
 * destroy (bound to its error) and returns true when it has taken it over (to run later); else
 * the destroy goes ahead at once. False when the stream is not there to route.
 */
export function interceptMasterDestroy(
  pty: object,
  intercept: (destroy: () => unknown) => boolean,
): boolean {
  const socket = socketOf(pty);
  if (!socket) return false;
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (error?: Error) => {
    if (intercept(() => destroy(error))) return socket;
    return destroy(error);
  };
  return true;
}

/** Destroys node-pty's terminal object (closes the master) where node-pty offers destroy(). */
export function destroyPty(pty: object): void {
  const destroy = (pty as Internals).destroy;
  if (typeof destroy === 'function') destroy.call(pty);
}
