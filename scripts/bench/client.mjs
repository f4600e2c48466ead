// A stdio MCP client for the benchmark: the built server, driven through the official SDK.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The built server; BENCH_SERVER names another build (e.g. an older one, to compare). */
export const SERVER =
  process.env.BENCH_SERVER ?? new URL('../../dist/main.js', import.meta.url).pathname;

export async function connect() {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    env: process.env,
    stderr: 'inherit',
  });
  const client = new Client({ name: 'agent-tty-bench', version: '1.0.0' });
  await client.connect(transport);
  /** The tool's result as it comes, tool errors included. */
  const request = (name, args) =>
    client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  const call = async (name, args) => {
    const result = await request(name, args);
    if (result.isError) throw new Error(`${name}: ${result.content[0]?.text}`);
    return result;
  };
  return {
    call,
    request,
    pid: transport.pid,
    rssMiB: () => {
      const status = readFileSync(`/proc/${transport.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
    },
    close: () => client.close(),
  };
}

/** ms from spawning the server to the answers to initialize and tools/list. */
export function startupOnce(args = [SERVER]) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let buffer = '';
    const send = (message) =>
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (message.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/list', params: {} });
        } else if (message.id === 2) {
          resolve(performance.now() - started);
          child.stdin.end();
        }
      }
    });
    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    });
  });
}

/** ms for a bare `node -e 0`: the floor of any Node server's start-up here. */
export function nodeFloorOnce() {
  return new Promise((resolve) => {
    const started = performance.now();
    spawn(process.execPath, ['-e', '0']).on('exit', () => resolve(performance.now() - started));
  });
}
