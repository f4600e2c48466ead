// The built server as a bare child speaking newline-delimited JSON-RPC, for the hostile loads:
// every call has its own deadline, errors (JSON-RPC or tool errors) come back as values, and the
// client can stop reading the server's stdout to play a stalled reader.
import { spawn } from 'node:child_process';
import { SERVER } from './client.mjs';

/**
 * Spawns and initializes the server. `call` resolves with `{ result }`, `{ error: code }` (a
 * tool error's code, or `rpc <code>` for a JSON-RPC error) or `{ timedOut: true }`; it never
 * rejects.
 */
export async function startRawClient({ env = {} } = {}) {
  const child = spawn(process.execPath, [SERVER], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const waiting = new Map();
  let buffer = '';
  let nextId = 1;
  let exited = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      const settle = message.id === undefined ? undefined : waiting.get(message.id);
      if (!settle) continue;
      waiting.delete(message.id);
      if (message.error) settle({ error: `rpc ${message.error.code}` });
      else if (message.result?.isError)
        settle({ error: message.result.structuredContent?.error?.code ?? 'tool error' });
      else settle({ result: message.result });
    }
  });
  // Stderr is drained and dropped: a flooded server may log a lot, and a full pipe would stall it.
  child.stderr.resume();
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream.on('error', () => {});
  child.on('exit', () => {
    exited = true;
    for (const settle of waiting.values()) settle({ error: 'server exited' });
    waiting.clear();
  });
  const send = (message) => {
    if (!exited) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  };
  const request = (method, params, timeoutMs = 30_000) =>
    new Promise((resolve) => {
      if (exited) return resolve({ error: 'server exited' });
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve({ timedOut: true });
      }, timeoutMs);
      waiting.set(id, (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
      send({ id, method, params });
    });
  const init = await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'agent-tty-bench-hostile', version: '1' },
  });
  if (!init.result) throw new Error(`server did not initialize: ${JSON.stringify(init)}`);
  send({ method: 'notifications/initialized' });
  return {
    pid: child.pid,
    hasExited: () => exited,
    call: (name, args, timeoutMs) => request('tools/call', { name, arguments: args }, timeoutMs),
    /** Stops reading the server's stdout; the pipe fills and the server's writes back up. */
    pauseReading: () => child.stdout.pause(),
    resumeReading: () => child.stdout.resume(),
    /** Kills the server and everything it started (its sessions end with it). */
    kill: () =>
      new Promise((resolve) => {
        if (exited) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.stdin.end();
        child.kill('SIGTERM');
      }),
  };
}
