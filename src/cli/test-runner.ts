/**
 * `agent-tty test`: replays test scripts deterministically, with no model in the loop. Each
 * script gets a real terminal; actions run exactly as terminal_input runs them, and assertions
 * wait (up to their timeout) for the screen to come right, then the run stops at the first
 * failure with the final screen in the report.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';
import { silentLogger } from '../log.js';
import { sharedMatchPool } from '../match/match-pool.js';
import { createSessionFactory } from '../runtime.js';
import { planLaunch } from '../session/launch.js';
import { runBatch } from '../session/run-batch.js';
import type { Session } from '../session/session.js';
import { waitForCondition } from '../session/wait.js';
import { formatSnapshot } from '../tools/format.js';
import { observeOptions } from '../tools/tool.js';
import { parseTestScript, type Step, type TestScript } from './test-script.js';

export interface TestResult {
  readonly name: string;
  readonly file: string;
  readonly passed: boolean;
  readonly durationMs: number;
  readonly failure?: { readonly step: number; readonly message: string; readonly screen: string };
}

const POLL_MS = 20;

class StepFailure extends Error {}

export async function runTestFile(file: string, config: Config): Promise<TestResult> {
  const started = performance.now();
  let script: TestScript;
  try {
    script = parseTestScript(JSON.parse(readFileSync(file, 'utf8')), config.quietMs);
  } catch (err) {
    const message = `cannot read the script: ${(err as Error).message}`;
    return {
      name: file,
      file,
      passed: false,
      durationMs: 0,
      failure: { step: -1, message, screen: '' },
    };
  }
  const create = createSessionFactory(config, silentLogger);
  const plan = planLaunch(script, { env: process.env, cwd: process.cwd() });
  let session: Session | undefined;
  try {
    session = await create({
      id: 'test',
      plan,
      cols: script.cols,
      rows: script.rows,
      scrollbackLines: config.scrollbackLines,
    });
    await runSteps(session, script.steps, config);
    return { name: script.name, file, passed: true, durationMs: performance.now() - started };
  } catch (err) {
    const step = err instanceof StepError ? err.step : -1;
    const screen =
      session && !session.isClosed
        ? formatSnapshot('test', session.snapshot(true)).replace(/(\n *\d+│)+$/, '')
        : '';
    return {
      name: script.name,
      file,
      passed: false,
      durationMs: performance.now() - started,
      failure: { step, message: (err as Error).message, screen },
    };
  } finally {
    await session?.close();
  }
}

class StepError extends Error {
  constructor(
    readonly step: number,
    message: string,
  ) {
    super(message);
  }
}

async function runSteps(session: Session, steps: readonly Step[], config: Config): Promise<void> {
  const controller = new AbortController();
  for (let i = 0; i < steps.length; ) {
    const step = steps[i] as Step;
    if (step.kind === 'action') {
      // Consecutive actions run as one batch, exactly as one terminal_input call would.
      let end = i;
      while (steps[end]?.kind === 'action') end++;
      const batch = steps.slice(i, end) as Extract<Step, { kind: 'action' }>[];
      try {
        await runBatch(
          session,
          batch.map((s) => s.action),
          {
            signal: controller.signal,
            resolveObserve: (settleMs, settleTimeoutMs) =>
              observeOptions(config, settleMs, settleTimeoutMs),
          },
        );
      } catch (err) {
        const failed = (err as { failedActionIndex?: number }).failedActionIndex ?? 0;
        throw new StepError(batch[failed]?.index ?? i, (err as Error).message);
      }
      i = end;
      continue;
    }
    try {
      await runCheck(session, step);
    } catch (err) {
      throw new StepError(step.index, `step ${step.index} ${(err as Error).message}`);
    }
    i++;
  }
}

async function runCheck(session: Session, step: Exclude<Step, { kind: 'action' }>): Promise<void> {
  if (step.kind === 'resize') {
    await session.resize(step.cols, step.rows);
    return;
  }
  if (step.kind === 'expectExit') {
    await waitForCondition(session, { kind: 'exit' }, { timeoutMs: step.timeoutMs });
    const info = session.info();
    if (step.code !== undefined && info.exitCode !== step.code) {
      throw new StepFailure(
        `expectExit: exit code ${info.exitCode ?? info.signal}, expected ${step.code}`,
      );
    }
    if (step.signal !== undefined && info.signal !== step.signal) {
      throw new StepFailure(
        `expectExit: ${info.signal ?? `exit code ${info.exitCode}`}, expected ${step.signal}`,
      );
    }
    return;
  }
  const deadline = performance.now() + step.timeoutMs;
  for (;;) {
    await session.whenParsed();
    const problem = await expectation(session, step);
    if (problem === undefined) return;
    if (performance.now() >= deadline) {
      throw new StepFailure(`expect ${step.description}: ${problem} within ${step.timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Why the expectation does not hold now, or undefined when it does. */
async function expectation(
  session: Session,
  step: Extract<Step, { kind: 'expect' }>,
): Promise<string | undefined> {
  const rows = session.rowTexts();
  const candidates = (step.row === undefined ? rows : rows.slice(step.row - 1, step.row)).map(
    (r) => r.text,
  );
  // With a column, every match is a candidate: at most one per position.
  const limit =
    step.column === undefined ? 1 : candidates.reduce((n, text) => n + text.length + 1, 0);
  const hits = await sharedMatchPool().search(step.query, candidates, { limit, withEmpty: true });
  const offset = step.row === undefined ? 0 : step.row - 1;
  const found = hits.some(
    (hit) =>
      step.column === undefined || rows[offset + hit.textIndex]?.columns[hit.index] === step.column,
  );
  if (step.style && found !== step.absent) {
    const snapshot = session.snapshot(false);
    const span = snapshot.spans.find(
      ([row, start, end]) =>
        row === step.row && start <= (step.column as number) && (step.column as number) <= end,
    );
    const actual = span ? (snapshot.styles[span[3]] as Record<string, unknown>) : {};
    for (const [key, value] of Object.entries(step.style)) {
      if (actual[key] !== value)
        return `cell ${step.row}:${step.column} has ${JSON.stringify(actual)}`;
    }
  }
  if (found === step.absent) {
    const where =
      step.row === undefined
        ? ''
        : ` at row ${step.row}${step.column ? ` column ${step.column}` : ''}`;
    return step.absent ? `still on the screen${where}` : `not on the screen${where}`;
  }
  return undefined;
}

/** JUnit XML for CI systems. */
export function junitReport(results: readonly TestResult[]): string {
  const esc = (s: string) =>
    s
      .replace(
        /[<>&"]/g,
        (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] as string,
      )
      // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 forbids these characters
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
  const failures = results.filter((r) => !r.passed).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = results.reduce((t, r) => t + r.durationMs, 0);
  const cases = results.map((r) => {
    const head = `  <testcase name="${esc(r.name)}" classname="${esc(r.file)}" time="${seconds(r.durationMs)}"`;
    if (r.passed) return `${head}/>`;
    const f = r.failure as NonNullable<TestResult['failure']>;
    return `${head}>\n    <failure message="${esc(f.message)}">${esc(`${f.message}\n${f.screen}`)}</failure>\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="agent-tty" tests="${results.length}" failures="${failures}" time="${seconds(total)}">`,
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}

/** The human report: a line per script, and for a failure the step, the reason and the screen. */
export function textReport(results: readonly TestResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    const time = `${(r.durationMs / 1000).toFixed(1)} s`;
    lines.push(`${r.passed ? '✓' : '✗'} ${r.name} (${r.file}) ${time}`);
    if (r.failure) {
      lines.push(`    ${r.failure.message}`);
      if (r.failure.screen) {
        lines.push('    final screen:', ...r.failure.screen.split('\n').map((l) => `      ${l}`));
      }
    }
  }
  const passed = results.filter((r) => r.passed).length;
  lines.push(
    `${results.length} test${results.length === 1 ? '' : 's'}, ${passed} passed, ${results.length - passed} failed`,
  );
  return lines.join('\n');
}
