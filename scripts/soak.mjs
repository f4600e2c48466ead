#!/usr/bin/env node
// npm run soak: the stress tests of the registry and the tool surface, longer than `npm test` can
// afford. The load test runs with SOAK_LOAD_SECONDS (default 300) of firehose per session instead
// of 10; the transcript tests fill 8 default transcripts (32 MiB) with 64 MiB of output each; then
// the torture and hostile suites repeat SOAK_ROUNDS times (default 5). Run after `npm run build`
// and `npm run build:test`. Exits non-zero on the first failing run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const LOAD_SECONDS = Number(process.env.SOAK_LOAD_SECONDS ?? 300);
const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 5);
const E2E = 'build/test/e2e';
const REPEATED = ['torture', 'hostile', 'hostile-probes'].map((f) => `${E2E}/${f}.test.js`);

function run(label, files, env = {}) {
  for (const file of files) {
    if (!existsSync(file)) {
      console.error(`${file} is missing: run npm run build && npm run build:test first`);
      process.exit(1);
    }
  }
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...files], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`soak: ${label}: ${result.status === 0 ? 'passed' : 'FAILED'} in ${seconds} s`);
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run(`load, ${LOAD_SECONDS} s per session`, [`${E2E}/load.test.js`], {
  AGENT_TTY_LOAD_SECONDS: String(LOAD_SECONDS),
});
run('full transcripts, 8 sessions x 64 MiB', [`${E2E}/transcript.test.js`], {
  AGENT_TTY_SOAK_TRANSCRIPT_MIB: '32',
  AGENT_TTY_SOAK_OUTPUT_MIB: '64',
});
for (let round = 1; round <= ROUNDS; round++) run(`round ${round} of ${ROUNDS}`, REPEATED);
console.log('soak: all passed');
