/**
 * The format of `agent-tty test` scripts: a command to start, then steps in the same vocabulary
 * as terminal_input (text, paste, key, mouse, focus, raw, wait) plus assertions (expect,
 * expectExit) and resize. Parsing only; see test-runner.ts for running.
 * @see spec/testing.md
 */
import { z } from 'zod';
import { ACTION_TYPES, actionSchemas, type WireAction } from '../input/action-schema.js';
import { actionAt, parseAction } from '../input/actions.js';
import { checkSettleTiming } from '../session/observation.js';
import { LIMITS } from '../shared/config.js';
import { TerminalError } from '../shared/errors.js';
import { type CompiledQuery, compileQuery } from '../shared/text-query.js';

export type Step =
  | { readonly kind: 'action'; readonly action: WireAction; readonly index: number }
  | {
      readonly kind: 'expect';
      readonly index: number;
      readonly query: CompiledQuery;
      readonly description: string;
      readonly row?: number | undefined;
      readonly column?: number | undefined;
      readonly style?: Record<string, unknown> | undefined;
      readonly absent: boolean;
      readonly timeoutMs: number;
      readonly stopOnInput: boolean;
    }
  | {
      readonly kind: 'expectExit';
      readonly index: number;
      readonly code?: number | undefined;
      readonly signal?: string | undefined;
      readonly timeoutMs: number;
      readonly stopOnInput: boolean;
    }
  | {
      readonly kind: 'resize';
      readonly index: number;
      readonly cols: number;
      readonly rows: number;
    };

export interface TestScript {
  readonly name: string;
  readonly command?: string | undefined;
  readonly cols: number;
  readonly rows: number;
  readonly cwd?: string | undefined;
  readonly env?: Record<string, string> | undefined;
  readonly unsetEnv?: string[] | undefined;
  readonly shell?: string | undefined;
  readonly login?: boolean | undefined;
  readonly steps: Step[];
}

const ScriptSchema = z.strictObject({
  name: z.string().min(1),
  command: z.string().min(1).optional(),
  cols: z.int().min(LIMITS.minCols).max(LIMITS.maxCols).default(80),
  rows: z.int().min(LIMITS.minRows).max(LIMITS.maxRows).default(24),
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  unsetEnv: z.array(z.string()).optional(),
  shell: z.string().optional(),
  login: z.boolean().optional(),
  steps: z.array(z.looseObject({ type: z.string() })).min(1),
});

const ExpectSchema = z.strictObject({
  type: z.literal('expect'),
  text: z.string().min(1).optional(),
  pattern: z.string().min(1).optional(),
  ignoreCase: z.boolean().optional(),
  row: z.int().min(1).optional(),
  column: z.int().min(1).optional(),
  style: z.record(z.string(), z.unknown()).optional(),
  absent: z.boolean().optional(),
  timeoutMs: z.int().min(1).max(LIMITS.maxWaitMs).optional(),
  stopOnInput: z.boolean().optional(),
});

const ExpectExitSchema = z.strictObject({
  type: z.literal('expectExit'),
  code: z.int().optional(),
  signal: z.string().optional(),
  timeoutMs: z.int().min(1).max(LIMITS.maxWaitMs).optional(),
  stopOnInput: z.boolean().optional(),
});

const ResizeSchema = z.strictObject({
  type: z.literal('resize'),
  cols: z.int().min(LIMITS.minCols).max(LIMITS.maxCols),
  rows: z.int().min(LIMITS.minRows).max(LIMITS.maxRows),
});

/** Default time an assertion waits for the screen to come right. */
export const EXPECT_TIMEOUT_MS = 5000;

/** A script that breaks the format: INVALID_ARGUMENT naming the first problem. */
function scriptError(message: string): TerminalError {
  return new TerminalError('INVALID_ARGUMENT', message);
}

function check<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.length ? `.${issue.path.join('.')}` : '';
  throw scriptError(`${where}${path}: ${issue?.message ?? 'invalid'}`);
}

/** Parses and validates a script; an INVALID_ARGUMENT error names the first problem. */
export function parseTestScript(json: unknown, quietMs: number): TestScript {
  const script = check(ScriptSchema, json, 'script');
  const steps = script.steps.map((raw, index): Step => {
    const where = `steps[${index}]`;
    if ((ACTION_TYPES as readonly string[]).includes(raw.type)) {
      // Checked now, so a broken script fails before it starts; run as terminal_input runs it.
      const wire = check(actionSchemas().ActionSchema, raw, where);
      const at = actionAt(index, 'steps');
      const action = parseAction(wire, at);
      if (action.type === 'observe') checkSettleTiming(action, { quietMs }, at);
      return { kind: 'action', action: wire, index };
    }
    if (raw.type === 'expect') {
      const e = check(ExpectSchema, raw, where);
      if ((e.text === undefined) === (e.pattern === undefined) && e.style === undefined) {
        throw scriptError(`${where}: an expect takes text or pattern (and/or style at a cell)`);
      }
      if (e.style !== undefined && (e.row === undefined || e.column === undefined)) {
        throw scriptError(`${where}: a style expectation needs row and column`);
      }
      const query = {
        text: e.text,
        pattern: e.pattern ?? (e.text === undefined ? '' : undefined),
        ignoreCase: e.ignoreCase,
      };
      return {
        kind: 'expect',
        index,
        query: compileQuery(query),
        description:
          e.text !== undefined ? JSON.stringify(e.text) : e.pattern ? `/${e.pattern}/` : 'style',
        row: e.row,
        column: e.column,
        style: e.style,
        absent: e.absent === true,
        timeoutMs: e.timeoutMs ?? EXPECT_TIMEOUT_MS,
        stopOnInput: e.stopOnInput !== false,
      };
    }
    if (raw.type === 'expectExit') {
      const e = check(ExpectExitSchema, raw, where);
      return {
        kind: 'expectExit',
        index,
        code: e.code,
        signal: e.signal,
        timeoutMs: e.timeoutMs ?? 30_000,
        stopOnInput: e.stopOnInput !== false,
      };
    }
    if (raw.type === 'resize') {
      const r = check(ResizeSchema, raw, where);
      return { kind: 'resize', index, cols: r.cols, rows: r.rows };
    }
    throw scriptError(
      `${where}: unknown step type "${raw.type}" (${[...ACTION_TYPES, 'expect', 'expectExit', 'resize'].join(', ')})`,
    );
  });
  return { ...script, steps };
}
