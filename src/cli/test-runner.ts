/**
 * `agent-tty test`: replays test scripts deterministically, with no model in the loop. Each
 * script gets a real terminal; actions run exactly as terminal_input runs them, and assertions
 * wait (up to their timeout) for the screen to come right, then the run stops at the first
 * failure with the final screen in the report.
 */
import { readFileSync } from 'node:fs';
import { formatSnapshot } from '../render/format.js';
import { findInRows } from '../session/find.js';
import { planLaunch } from '../session/launch.js';
import { queueInput } from '../session/run-input.js';
import type { Session } from '../session/session.js';
import { createSessionFactory } from '../session/session-factory.js';
import { type WaitOutcome, waitForCondition, waitUntil } from '../session/wait.js';
import {
  conditionSubject,
  patternSubject,
  type WaitSubject,
  waitOutcomeError,
} from '../session/wait-errors.js';
import type { Config } from '../shared/config.js';
import { TerminalError, toTerminalError } from '../shared/errors.js';
import { silentLogger } from '../shared/log.js';
import { parseTestScript, type Step, type TestScript } from './test-script.js';

export interface TestResult {
  readonly name: string;
  readonly file: string;
  readonly passed: boolean;
  readonly durationMs: number;
  readonly failure?: { readonly step: number; readonly message: string; readonly screen: string };
}

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
      transcriptBytes: config.transcriptBytes,
    });
    await runSteps(session, script.steps, config);
    return { name: script.name, file, passed: true, durationMs: performance.now() - started };
  } catch (err) {
    const step = err instanceof StepFailed ? err.step : -1;
    const screen =
      session && !session.isClosed
        ? formatSnapshot('test', session.snapshot('none')).replace(
            /\n *\d+(-\d+)?│( \(blank\))?$/,
            '',
          )
        : '';
    return {
      name: script.name,
      file,
      passed: false,
      durationMs: performance.now() - started,
      failure: {
        step,
        message: (err as Error).message,
        screen,
      },
    };
  } finally {
    await session?.close();
  }
}

/** A step that failed: its index, and why (the message names the step). */
class StepFailed extends Error {
  constructor(
    readonly step: number,
    message: string,
  ) {
    super(message);
  }
}

async function runSteps(session: Session, steps: readonly Step[], config: Config): Promise<void> {
  for (let i = 0; i < steps.length; ) {
    const step = steps[i] as Step;
    if (step.kind === 'action') {
      // Consecutive actions run as one batch, exactly as one terminal_input call runs it.
      let end = i;
      while (steps[end]?.kind === 'action') end++;
      const batch = steps.slice(i, end) as Extract<Step, { kind: 'action' }>[];
      const stepOf = (k: number) => batch[k]?.index ?? i;
      try {
        await queueInput(
          session,
          { actions: batch.map((s) => s.action) },
          { defaults: config, at: (k) => ({ index: k, label: `steps[${stepOf(k)}]` }) },
        );
      } catch (err) {
        const failed = toTerminalError(err, 'a test step');
        const k = failed.partial.failedActionIndex;
        throw new StepFailed(stepOf(typeof k === 'number' ? k : 0), failed.message);
      }
      i = end;
      continue;
    }
    let failure: string | undefined;
    try {
      failure = await runCheck(session, step);
    } catch (err) {
      failure = toTerminalError(err, 'a test step').message;
    }
    if (failure !== undefined) throw new StepFailed(step.index, `step ${step.index} ${failure}`);
    i++;
  }
}

/** Runs a check step: why it failed, or undefined when it passed. */
async function runCheck(
  session: Session,
  step: Exclude<Step, { kind: 'action' }>,
): Promise<string | undefined> {
  if (step.kind === 'resize') {
    await session.resize(step.cols, step.rows);
    return undefined;
  }
  if (step.kind === 'expectExit') {
    const outcome = await waitForCondition(
      session,
      { kind: 'exit' },
      { timeoutMs: step.timeoutMs, stopOnInput: step.stopOnInput },
    );
    const failed = waitFailure(outcome, conditionSubject({ kind: 'exit' }), step.timeoutMs);
    if (failed !== undefined) return `expectExit: ${failed}`;
    const info = session.info();
    if (step.code !== undefined && info.exitCode !== step.code) {
      return `expectExit: exit code ${info.exitCode ?? info.signal}, expected ${step.code}`;
    }
    if (step.signal !== undefined && info.signal !== step.signal) {
      return `expectExit: ${info.signal ?? `exit code ${info.exitCode}`}, expected ${step.signal}`;
    }
    return undefined;
  }
  let problem: string | undefined;
  const check = async (signal: AbortSignal) => {
    problem = await expectation(session, step, signal);
    return problem === undefined ? { reason: 'matched' as const } : undefined;
  };
  const subject = patternSubject(step.description, step.absent);
  let outcome: WaitOutcome;
  try {
    outcome = await waitUntil(session, check, {
      timeoutMs: step.timeoutMs,
      what: subject.what,
      stopOnInput: step.stopOnInput,
    });
  } catch (err) {
    // The screen of an exited program is final: the expectation cannot come right any more.
    if (err instanceof TerminalError && err.code === 'SESSION_EXITED') {
      return `expect ${step.description}: ${problem}; ${err.message}`;
    }
    throw err;
  }
  const failed = waitFailure(outcome, subject, step.timeoutMs);
  return failed === undefined ? undefined : `expect ${step.description}: ${problem}; ${failed}`;
}

/** Why a wait failed, as a terminal_input wait says it; undefined when its condition came. */
function waitFailure(outcome: WaitOutcome, subject: WaitSubject, timeoutMs: number) {
  return waitOutcomeError(outcome, subject, timeoutMs)?.message;
}

/** Why the expectation does not hold now, or undefined when it does. */
async function expectation(
  session: Session,
  step: Extract<Step, { kind: 'expect' }>,
  signal: AbortSignal,
): Promise<string | undefined> {
  const rows = session.screen.rowTexts();
  const candidates = step.row === undefined ? rows : rows.slice(step.row - 1, step.row);
  // With a column, every match is a candidate: at most one per position.
  const limit =
    step.column === undefined ? 1 : candidates.reduce((n, r) => n + r.text.length + 1, 0);
  const matches = await findInRows(candidates, step.query, { limit, withEmpty: true, signal });
  const found = matches.some((m) => step.column === undefined || m.column === step.column);
  if (step.style && found !== step.absent) {
    const snapshot = session.snapshot('none');
    const span = snapshot.spans?.find(
      ([row, start, end]) =>
        row === step.row && start <= (step.column as number) && (step.column as number) <= end,
    );
    const actual: Record<string, unknown> = (span && snapshot.styles?.[span[3]]) ?? {};
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
