/**
 * A terminal's program inherits no descriptor of the server (spec/tools.md, Guarantees "A program
 * holds only its own terminal"). On Linux, node-pty's child marks descriptors 3 and up
 * close-on-exec before it runs the program, but its published binary does so one number at a
 * time and stops at the first number past 15 that is not open; in the child that is at the
 * latest the new terminal's own master, which the child has closed. So everything numbered above
 * the new terminal would be inherited: the masters of other sessions (after one closed and left
 * its numbers free), and descriptors the server itself inherited. Opening placeholders into every
 * free number below the highest open descriptor for the moment of the spawn gives the new
 * terminal the highest numbers, and the sweep then passes over every other descriptor.
 * macOS needs none of this: node-pty spawns there with POSIX_SPAWN_CLOEXEC_DEFAULT.
 */
import { closeSync, openSync, readdirSync } from 'node:fs';

export interface DescriptorDeps {
  /** The process's open descriptors, or undefined when they cannot be listed. */
  list(): readonly number[] | undefined;
  /** Opens a placeholder (close-on-exec) at the lowest free number; throws when none is left. */
  open(): number;
  close(fd: number): void;
}

const linuxDeps: DescriptorDeps = {
  list() {
    try {
      return readdirSync('/proc/self/fd').map(Number);
    } catch {
      return undefined;
    }
  },
  // Node opens every file close-on-exec, so a placeholder is never inherited itself.
  open: () => openSync('/dev/null', 'r'),
  close: closeSync,
};

/**
 * Runs `spawn` with every number below the highest open descriptor taken, then frees the
 * placeholders again (also when `spawn` throws). Only on Linux; elsewhere it just runs `spawn`.
 */
export function spawnAboveOpenDescriptors<T>(
  spawn: () => T,
  platform: NodeJS.Platform = process.platform,
  deps: DescriptorDeps = linuxDeps,
): T {
  if (platform !== 'linux') return spawn();
  const placeholders = fillDescriptorGaps(deps);
  try {
    return spawn();
  } finally {
    for (const fd of placeholders) deps.close(fd);
  }
}

/**
 * Opens placeholders until the next descriptor would be numbered above every descriptor open
 * now, and returns them: at most one per free number below the highest open descriptor. When the
 * descriptor limit stops it first, it frees them all again (the spawn needs descriptors too) and
 * returns none.
 */
export function fillDescriptorGaps(deps: DescriptorDeps): number[] {
  const open = deps.list();
  if (!open || open.length === 0) return [];
  // The listing's own directory descriptor is in the list and closed again by now: its number
  // is one of the gaps filled below.
  const highest = open.reduce((a, b) => Math.max(a, b), -1);
  const placeholders: number[] = [];
  try {
    for (;;) {
      const fd = deps.open();
      if (fd > highest) {
        deps.close(fd);
        return placeholders;
      }
      placeholders.push(fd);
    }
  } catch {
    for (const fd of placeholders) deps.close(fd);
    return [];
  }
}
