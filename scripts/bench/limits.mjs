// This machine's own limits, measured in the same run as agent-tty: how fast a PTY can be read,
// how fast @xterm/headless parses, and both together, with no MCP, settlement or snapshots.
import unicode11 from '@xterm/addon-unicode11';
import headless from '@xterm/headless';
import * as pty from 'node-pty';

function terminal(cols, rows) {
  const term = new headless.Terminal({
    cols,
    rows,
    scrollback: 2000,
    allowProposedApi: true,
    logLevel: 'off',
  });
  term.loadAddon(new unicode11.Unicode11Addon());
  term.unicode.activeVersion = '11';
  return term;
}

/**
 * Runs `command` in a PTY; returns its output chunks and the time from spawn to the last byte.
 * With `parse`, every chunk also goes into an emulator, and the time runs to the last parse.
 */
export function runPty(command, { cols = 80, rows = 24, parse = false } = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const term = parse ? terminal(cols, rows) : undefined;
    const chunks = [];
    let bytes = 0;
    let lastByteAt = started;
    let pending = 0;
    let exited = false;
    let lastParsedAt = started;
    const done = () => {
      if (!exited || pending > 0) return;
      const end = parse ? lastParsedAt : lastByteAt;
      term?.dispose();
      resolve({ ms: end - started, bytes, chunks });
    };
    const p = pty.spawn('/bin/sh', ['-c', command], {
      cols,
      rows,
      encoding: null,
      env: { ...process.env, TERM: 'xterm-256color' },
    });
    p.onData((data) => {
      bytes += data.length;
      lastByteAt = performance.now();
      if (!parse) chunks.push(data);
      if (term) {
        pending++;
        term.write(data, () => {
          pending--;
          lastParsedAt = performance.now();
          done();
        });
      }
    });
    p.onExit(() => {
      exited = true;
      done();
    });
  });
}

/** Parses `chunks` (as they came from a PTY) in a fresh emulator; ms to the last parse. */
export function parseOnly(chunks, cols = 80, rows = 24) {
  return new Promise((resolve) => {
    const term = terminal(cols, rows);
    const started = performance.now();
    let left = chunks.length;
    for (const chunk of chunks) {
      term.write(chunk, () => {
        if (--left === 0) {
          const ms = performance.now() - started;
          term.dispose();
          resolve(ms);
        }
      });
    }
  });
}
