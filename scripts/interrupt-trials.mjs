#!/usr/bin/env node
// Counts the Ctrl+C presses bash loses, as an agent sends them: batches of [a command, Enter,
// Ctrl+C, `echo ok-N`, Enter] in one bash session, beside busy loops that load the machine. A
// Ctrl+C is lost when `ok-N` does not appear within 4 s (the `sleep 5` ran to its end, or bash
// dropped a key and ran `cho ok-N`). Three shapes, in turn:
// - empty: Enter on an empty line, so the Ctrl+C reaches bash while it runs PROMPT_COMMAND;
// - fast: `true`, which ends before the Ctrl+C arrives, the same moment after a command;
// - sleep: `sleep 5`, where the Ctrl+C may reach bash before sleep takes the terminal.
//
// Usage: node scripts/interrupt-trials.mjs [trials=200] [busy loops=2]   (after npm run build)
// BENCH_SERVER=/path/to/dist/main.js measures another build.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { connect } from './bench/client.mjs';

const TRIALS = Number(process.argv[2] ?? 200);
const BUSY = Number(process.argv[3] ?? 2);
const SHAPES = [
  { name: 'empty', command: '' },
  { name: 'fast', command: 'true' },
  { name: 'sleep', command: 'sleep 5' },
];

const loops = Array.from({ length: BUSY }, () =>
  spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }),
);
const endLoops = () => {
  for (const loop of loops) loop.kill('SIGKILL');
};
process.on('exit', endLoops);

const client = await connect();
const started = await client.call('terminal_start', {
  shell: '/bin/bash',
  login: false,
  cols: 100,
  rows: 30,
});
const sessionId = started.structuredContent.sessionId;
const lost = Object.fromEntries(SHAPES.map((s) => [s.name, []]));
const loads = [];
const began = performance.now();
for (let trial = 0; trial < TRIALS; trial++) {
  const shape = SHAPES[trial % SHAPES.length];
  const result = await client.request('terminal_input', {
    sessionId,
    settleMs: 0,
    actions: [
      ...(shape.command ? [{ type: 'text', text: shape.command }] : []),
      { type: 'key', key: 'Enter' },
      { type: 'key', key: 'c', modifiers: ['Ctrl'] },
      { type: 'text', text: `echo ok-${trial}` },
      { type: 'key', key: 'Enter' },
      { type: 'wait', pattern: `^ok-${trial}$`, timeoutMs: 4000, stopOnInput: false },
    ],
  });
  if (result.isError) {
    const screen = (result.structuredContent?.snapshot?.screen ?? []).filter((r) => r !== '');
    lost[shape.name].push({ trial, screen: screen.slice(-4).join(' | ') });
    // Let a `sleep 5` that ran end, and the shell come back to its prompt, before the next trial.
    await client.request('terminal_input', {
      sessionId,
      settleMs: 0,
      actions: [{ type: 'wait', pattern: `^ok-${trial}$`, timeoutMs: 10_000, stopOnInput: false }],
    });
  }
  await client.request('terminal_input', {
    sessionId,
    settleMs: 0,
    actions: [{ type: 'wait', pattern: '[$#] $', timeoutMs: 10_000, stopOnInput: false }],
  });
  if (trial % 20 === 0) loads.push(loadavg()[0]);
}
const seconds = (performance.now() - began) / 1000;
await client.call('terminal_close', { sessionId });
await client.close();
endLoops();

const total = Object.values(lost).reduce((n, l) => n + l.length, 0);
console.log(
  `${TRIALS} batches beside ${BUSY} busy loops in ${seconds.toFixed(0)} s, ` +
    `load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
);
for (const shape of SHAPES) {
  const count = Math.ceil((TRIALS - SHAPES.indexOf(shape)) / SHAPES.length);
  console.log(`  ${shape.name.padEnd(6)} Ctrl+C lost in ${lost[shape.name].length} of ${count}`);
  for (const { trial, screen } of lost[shape.name].slice(0, 5)) {
    console.log(`    trial ${trial}: ${screen}`);
  }
}
console.log(`lost: ${total} of ${TRIALS}`);
process.exit(total === 0 ? 0 : 1);
