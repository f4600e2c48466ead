/**
 * Every error code an agent can meet, provoked for real through the tool handlers (createServer on
 * an in-memory MCP connection, real PTYs and bash): the message names the offending value, and it
 * carries the next step spec/errors.md gives for that code: each tool or field in backquotes in
 * the row's next-step column (`a` or `b`: one of the two). CANCELLED never reaches a client and
 * INTERNAL cannot be provoked on purpose; test/unit/errors.test.ts holds the codes themselves.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { ERROR_CODES, type ErrorCode } from '../../../src/shared/errors.js';
import { errorRow, mentions, promisedWords } from '../../helpers/error-spec.js';
import { type InMemoryServer, startInMemoryServer } from '../../helpers/in-memory-server.js';
import { assertToolError, type ToolReply } from '../../helpers/tool-calls.js';
import { waitUntil } from '../../helpers/wait.js';

const SH = { shell: '/bin/bash', login: false };
const T = { timeout: 30_000 };
const NEVER = 'agent-tty-never-shown';
const MIB = 1024 * 1024;
/** Below any result with a snapshot of a 200-row screen (see result-size.test.ts). */
const RESULT_LIMIT = 600;
/** Codes without a case here: why. */
const NOT_PROVOKED: Partial<Record<ErrorCode, string>> = {
  CANCELLED: 'the client that cancelled never receives the reply',
  INTERNAL: 'a bug, not something a call can provoke on purpose',
};
/** Codes whose next step is whatever the message names: their cases' `names` check it. */
const NEXT_STEP_IN_MESSAGE: readonly ErrorCode[] = ['INVALID_ARGUMENT', 'INVALID_KEY'];

interface Servers {
  /** At most one session, so a second start hits the limit. */
  readonly one: InMemoryServer;
  /** Results over RESULT_LIMIT bytes are refused. */
  readonly tight: InMemoryServer;
}

interface Provoked {
  readonly reply: ToolReply;
  /** What the message must name: the offending value, the session, the range. */
  readonly names: readonly string[];
  /** What the message must not say (a clause that would mislead). */
  readonly absent?: readonly string[];
}

interface Case {
  readonly code: ErrorCode;
  readonly when: string;
  provoke(servers: Servers): Promise<Provoked>;
}

/** A 40x5 session running cat (no mouse, reads what it is sent). */
async function startCat(s: InMemoryServer): Promise<string> {
  return (await s.start({ command: 'exec cat', ...SH, cols: 40, rows: 5, settleMs: 50 })).id;
}

const CASES: readonly Case[] = [
  {
    code: 'INVALID_ARGUMENT',
    when: 'a field breaks the schema',
    async provoke({ one }) {
      const reply = await one.call('terminal_start', { command: 'true', cols: 'wide' });
      return { reply, names: ['cols', 'a number', '"wide"', 'terminal_start'] };
    },
  },
  {
    code: 'INVALID_ARGUMENT',
    when: 'an environment variable name is not one',
    async provoke({ one }) {
      const reply = await one.call('terminal_start', { command: 'true', env: { 'A=B': 'x' } });
      return { reply, names: ['env.A=B', 'name must be non-empty without = or NUL'] };
    },
  },
  {
    code: 'INVALID_ARGUMENT',
    when: 'an action lacks a field its type needs',
    async provoke({ one }) {
      const id = await startCat(one);
      return { reply: await one.input(id, [{ type: 'key' }]), names: ['actions[0]', '"key"'] };
    },
  },
  {
    code: 'INVALID_ARGUMENT',
    when: 'a command wait in a session without command marks',
    async provoke({ one }) {
      const id = await startCat(one);
      const reply = await one.input(id, [{ type: 'wait', command: true }]);
      return { reply, names: ['actions[0]', 'no command marks', '"pattern"'] };
    },
  },
  {
    code: 'INVALID_ARGUMENT',
    when: 'an unknown field is another name for an accepted one',
    async provoke({ one }) {
      const reply = await one.call('terminal_start', { command: 'true', timeout: 5000 });
      return { reply, names: ['unknown field "timeout" (did you mean "timeoutMs"?)'] };
    },
  },
  {
    code: 'INVALID_ARGUMENT',
    when: "an action's unknown field is a misspelt accepted one",
    async provoke({ one }) {
      const id = await startCat(one);
      const reply = await one.input(id, [
        { type: 'key', key: 'c', modifier: ['Ctrl'] },
        { type: 'text', txt: 'hi' },
      ]);
      return {
        reply,
        names: [
          'actions[0]: unknown field "modifier" (did you mean "modifiers"?)',
          'actions[1]: unknown field "txt" (did you mean "text"?)',
        ],
      };
    },
  },
  {
    code: 'INVALID_ARGUMENT',
    when: 'modifiers is a string',
    async provoke({ one }) {
      const id = await startCat(one);
      const reply = await one.input(id, [{ type: 'key', key: 'c', modifiers: 'Ctrl' }]);
      return {
        reply,
        names: ['actions[0].modifiers: expected an array, got "Ctrl": pass ["Ctrl"]'],
        absent: ['at most', 'character'],
      };
    },
  },
  {
    code: 'INVALID_ARGUMENT',
    when: "cwd names another user's home with ~",
    async provoke({ one }) {
      const reply = await one.call('terminal_start', { command: 'true', ...SH, cwd: '~nobody/x' });
      return { reply, names: ['"~nobody/x"', 'only "~" and "~/…" are expanded', 'absolute path'] };
    },
  },
  {
    code: 'INVALID_ARGUMENT',
    when: 'an argument uses a reserved name',
    async provoke({ one }) {
      const env = JSON.parse('{"__proto__":"x"}') as Record<string, string>;
      const reply = await one.call('terminal_start', { command: 'true', env });
      return { reply, names: ['env.__proto__', 'is not accepted as a name'] };
    },
  },
  {
    code: 'SESSION_NOT_FOUND',
    when: 'the id names no session',
    async provoke({ one }) {
      const reply = await one.call('terminal_snapshot', { sessionId: 't999' });
      return { reply, names: ['"t999"'] };
    },
  },
  {
    code: 'SESSION_LIMIT',
    when: 'every session slot is taken',
    async provoke({ one }) {
      const id = await startCat(one);
      const reply = await one.call('terminal_start', { command: 'exec cat', ...SH });
      return { reply, names: [`"${id}"`, 'limit of 1 session'] };
    },
  },
  {
    code: 'SESSION_EXITED',
    when: 'input goes to a program that has exited',
    async provoke({ one }) {
      const { id } = await one.start({ command: 'exit 3', ...SH, waitForExit: true });
      const reply = await one.input(id, [{ type: 'text', text: 'x' }]);
      return { reply, names: [`"${id}"`, 'exit code 3'] };
    },
  },
  {
    code: 'SESSION_EXITED',
    when: 'the program exits during a wait',
    async provoke({ one }) {
      const { id } = await one.start({ command: 'read -r line; exit 4', ...SH, settleMs: 50 });
      const reply = await one.input(id, [
        { type: 'text', text: 'go' },
        { type: 'key', key: 'Enter' },
        { type: 'wait', pattern: NEVER, timeoutMs: 10_000 },
      ]);
      return { reply, names: [`"${id}"`, 'exit code 4', NEVER] };
    },
  },
  {
    code: 'SESSION_CLOSED',
    when: 'the session is closed during a wait',
    async provoke({ one }) {
      const id = await startCat(one);
      const waiting = one.input(id, [{ type: 'wait', pattern: NEVER, timeoutMs: 10_000 }]);
      await waitUntil(() => (one.registry.find(id)?.queue.size ?? 0) > 0, `a wait runs on ${id}`);
      assert.equal((await one.call('terminal_close', { sessionId: id })).data.closed, true);
      return { reply: await waiting, names: [`"${id}"`] };
    },
  },
  {
    code: 'SPAWN_FAILED',
    when: 'the working directory does not exist',
    async provoke({ one }) {
      const cwd = '/nonexistent/agent-tty-errors';
      const reply = await one.call('terminal_start', { command: 'true', ...SH, cwd });
      return { reply, names: [`"${cwd}"`] };
    },
  },
  {
    code: 'SPAWN_FAILED',
    when: 'the shell does not exist',
    async provoke({ one }) {
      const shell = '/nonexistent/agent-tty-sh';
      const reply = await one.call('terminal_start', { command: 'true', login: false, shell });
      return { reply, names: [`"${shell}"`] };
    },
  },
  {
    code: 'SPAWN_FAILED',
    when: 'the environment is too large to exec as a whole',
    async provoke({ one }) {
      const env: Record<string, string> = {};
      for (let i = 0; i < 64; i++) env[`BIG${String(i).padStart(2, '0')}`] = 'x'.repeat(100_000);
      const reply = await one.call('terminal_start', { command: 'true', ...SH, env });
      return { reply, names: ['BIG00 (100006 bytes)', 'unsetEnv', 'E2BIG'] };
    },
  },
  {
    code: 'INVALID_KEY',
    when: 'a chord is written as one key',
    async provoke({ one }) {
      const id = await startCat(one);
      const reply = await one.input(id, [{ type: 'key', key: 'Ctrl+C' }]);
      return { reply, names: ['"Ctrl+C"', '{"type":"key","key":"c","modifiers":["Ctrl"]}'] };
    },
  },
  {
    code: 'MOUSE_NOT_ENABLED',
    when: 'a click goes to a program without mouse reporting',
    async provoke({ one }) {
      const id = await startCat(one);
      const reply = await one.input(id, [{ type: 'mouse', event: 'click', row: 1, column: 1 }]);
      return { reply, names: ['actions[0]', ':set mouse=a'] };
    },
  },
  {
    code: 'OUT_OF_BOUNDS',
    when: 'a click is below the screen',
    async provoke({ one }) {
      const id = await startCat(one);
      const reply = await one.input(id, [{ type: 'mouse', event: 'click', row: 9, column: 1 }]);
      return { reply, names: ['row 9', 'row from 1 to 5', 'column from 1 to 40'] };
    },
  },
  {
    code: 'OUT_OF_BOUNDS',
    when: 'a snapshot region starts below the screen',
    async provoke({ one }) {
      const id = await startCat(one);
      const region = { row: 9, column: 1, rows: 1, cols: 1 };
      const reply = await one.call('terminal_snapshot', { sessionId: id, settleMs: 0, region });
      return { reply, names: ['row 9', 'row from 1 to 5', 'column from 1 to 40'] };
    },
  },
  {
    code: 'RESULT_TOO_LARGE',
    when: 'the first screen is over the result limit',
    async provoke({ tight }) {
      const reply = await tight.call('terminal_start', {
        command: 'seq 199; exec cat',
        ...SH,
        cols: 40,
        rows: 200,
      });
      return { reply, names: [`${RESULT_LIMIT}-byte limit`] };
    },
  },
  {
    code: 'WAIT_TIMEOUT',
    when: 'a pattern does not appear in time',
    async provoke({ one }) {
      const id = await startCat(one);
      const reply = await one.input(id, [{ type: 'wait', pattern: NEVER, timeoutMs: 100 }]);
      return { reply, names: ['100 ms', `/${NEVER}/`] };
    },
  },
  {
    code: 'WAIT_TIMEOUT',
    when: "the shell's command does not finish in time",
    async provoke({ one }) {
      const { id } = await one.start({ ...SH, env: { HOME: '/nonexistent' }, cols: 40, rows: 5 });
      const reply = await one.input(id, [
        { type: 'text', text: 'sleep 5\r' },
        { type: 'wait', command: true, timeoutMs: 300 },
      ]);
      return { reply, names: ['300 ms', "the shell's command to finish"] };
    },
  },
  {
    code: 'INPUT_REQUIRED',
    when: 'the program asks for input while a pattern wait waits for something else',
    async provoke({ one }) {
      const { id } = await one.start({
        command: "read -p 'Continue? ' x",
        ...SH,
        cols: 40,
        rows: 5,
        settleMs: 50,
      });
      const reply = await one.input(id, [{ type: 'wait', pattern: NEVER }]);
      return { reply, names: [`/${NEVER}/ has not appeared`, 'waiting for input', 'quiet for'] };
    },
  },
  {
    code: 'INPUT_BACKLOG',
    when: 'the program reads nothing and the unread input would pass 1 MiB',
    async provoke({ one }) {
      // R shows once the terminal is raw; before that, the kernel takes and drops input.
      const { id } = await one.start({
        command: 'stty raw -echo; printf R; exec sleep 1000',
        ...SH,
        settleMs: 50,
      });
      await one.waitFor(id, (s) => s.screen.join('\n').includes('R'));
      const first = await one.input(id, [{ type: 'text', text: 'x'.repeat(MIB - 16) }], {
        settleMs: 0,
      });
      assert.equal(first.isError, false, first.text);
      const reply = await one.input(id, [{ type: 'text', text: 'y'.repeat(64 * 1024) }]);
      return { reply, names: [`"${id}"`, `${MIB}-byte limit`] };
    },
  },
  {
    code: 'NOT_READY',
    when: 'input is sent to a program that shows nothing and reads nothing for its first 10 s',
    async provoke({ one }) {
      const { id } = await one.start({ command: 'exec sleep 600', ...SH, settleMs: 0 });
      const reply = await one.input(id, [{ type: 'text', text: 'too early\n' }]);
      assert.equal(reply.data.inputSent, false);
      return { reply, names: [`"${id}"`, 'nothing was sent', '10 s'] };
    },
  },
  {
    code: 'PATTERN_TIMEOUT',
    when: 'a find pattern backtracks past its budget',
    async provoke({ one }) {
      const row = `${'a'.repeat(40)}!`;
      const { id } = await one.start({
        command: `printf '%s\\n' '${row}'; exec sleep 600`,
        ...SH,
        settleMs: 50,
      });
      await one.waitFor(id, (snap) => snap.screen.some((line) => line.includes(row)));
      const reply = await one.call('terminal_snapshot', {
        sessionId: id,
        settleMs: 0,
        find: { pattern: '(a+)+$' },
      });
      return { reply, names: ['/(a+)+$/', '1000 ms'] };
    },
  },
];

describe('every error message names the next step spec/errors.md gives', () => {
  let servers: Servers;
  before(async () => {
    servers = {
      one: await startInMemoryServer({ maxSessions: 1 }),
      tight: await startInMemoryServer({ maxResultBytes: RESULT_LIMIT }),
    };
  });
  afterEach(async () => {
    for (const s of [servers.one, servers.tight]) {
      for (const { sessionId } of s.registry.list()) {
        await s.call('terminal_close', { sessionId });
      }
    }
  });
  after(async () => {
    assert.deepEqual(await servers.one.close(), [], 'no process of any session is left');
    assert.deepEqual(await servers.tight.close(), [], 'no process of any session is left');
  });

  it('has a case for every code a client can meet', () => {
    const covered = new Set(CASES.map((c) => c.code));
    const missing = ERROR_CODES.filter((code) => !covered.has(code) && !NOT_PROVOKED[code]);
    assert.deepEqual(missing, [], 'codes without a case');
  });

  it('promises a tool or field in the next step of every code but those the message names', () => {
    const unpromised = [...new Set(CASES.map((c) => c.code))].filter(
      (code) => promisedWords(errorRow(code).nextStep).length === 0,
    );
    assert.deepEqual(unpromised, NEXT_STEP_IN_MESSAGE);
  });

  for (const c of CASES) {
    it(`${c.code} when ${c.when}`, T, async () => {
      const { reply, names, absent = [] } = await c.provoke(servers);
      const { message } = assertToolError(reply, c.code);
      for (const name of names) {
        assert.ok(message.includes(name), `the message names ${name}: ${message}`);
      }
      for (const words of absent) {
        assert.ok(!message.includes(words), `the message does not say ${words}: ${message}`);
      }
      const { nextStep } = errorRow(c.code);
      for (const words of promisedWords(nextStep)) {
        assert.ok(
          words.some((word) => mentions(message, word)),
          `the message has ${words.join(' or ')} (spec/errors.md: "${nextStep}"): ${message}`,
        );
      }
    });
  }
});
