/**
 * OSC 133 command marks: the parser keeps only marks that carry the session's nonce and reads
 * D's exit code; the log is bounded; the replay pairs C and D into commands and places their
 * output in the one line numbering; the screen records marks at the cursor's line, drops those
 * of the alternate screen, and never shows a mark as text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CommandMark,
  CommandMarkLog,
  commandState,
  findFinishedCommand,
  MAX_MARKS,
  parseCommandMark,
} from '../../../src/screen/command-marks.js';
import { Screen } from '../../../src/screen/screen.js';

const NONCE = 'a1b2c3';

describe('parseCommandMark', () => {
  const cases: [string, ReturnType<typeof parseCommandMark>][] = [
    ['A;aid=a1b2c3', { kind: 'A' }],
    ['B;aid=a1b2c3', { kind: 'B' }],
    ['C;aid=a1b2c3', { kind: 'C' }],
    ['D;0;aid=a1b2c3', { kind: 'D', exitCode: 0 }],
    ['D;130;aid=a1b2c3', { kind: 'D', exitCode: 130 }],
    ['D;aid=a1b2c3', { kind: 'D' }],
    // Why a D has no exit code: the shell's hook found another hook ran before it.
    ['D;aid=a1b2c3;why=order', { kind: 'D', why: 'order' }],
    ['D;aid=a1b2c3;why=other', { kind: 'D' }],
    ['D;1;aid=a1b2c3;why=order', { kind: 'D', exitCode: 1 }],
    ['D;;aid=a1b2c3', { kind: 'D' }],
    ['D;x;aid=a1b2c3', { kind: 'D' }],
    ['D;99999;aid=a1b2c3', { kind: 'D' }],
    // Other parameters, in any order, do not matter.
    ['A;cl=m;aid=a1b2c3;k=i', { kind: 'A' }],
    ['D;2;err=x;aid=a1b2c3', { kind: 'D', exitCode: 2 }],
    // Not ours: no aid, another aid, a prefix or extension of ours, aid as the exit field.
    ['A', undefined],
    ['D;0', undefined],
    ['D;1;aid=ffffff', undefined],
    ['D;1;aid=a1b2c', undefined],
    ['D;1;aid=a1b2c3d', undefined],
    ['D;1;AID=a1b2c3', undefined],
    ['aid=a1b2c3', undefined],
    // Not a mark of the four kinds.
    ['P;aid=a1b2c3', undefined],
    ['AA;aid=a1b2c3', undefined],
    ['', undefined],
  ];
  for (const [data, expected] of cases) {
    it(`${JSON.stringify(data)} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(parseCommandMark(data, NONCE), expected);
    });
  }
});

describe('CommandMarkLog', () => {
  it('numbers marks from 1 and keeps the newest: at least MAX_MARKS, at most twice that', () => {
    const log = new CommandMarkLog();
    assert.equal(log.seq, 0);
    for (let i = 0; i < MAX_MARKS * 5 + 7; i++) {
      log.add({ kind: 'A' }, i + 1, 1);
      const kept = log.marks.length;
      assert.ok(kept <= 2 * MAX_MARKS, `${kept} marks kept`);
      assert.ok(kept >= Math.min(i + 1, MAX_MARKS), `${kept} marks kept after ${i + 1}`);
    }
    assert.equal(log.seq, MAX_MARKS * 5 + 7);
    assert.equal(log.marks.at(-1)?.seq, log.seq, 'the newest is kept');
    const seqs = log.marks.map((m) => m.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => (seqs[0] as number) + i),
      'in order, without gaps',
    );
  });
});

/**
 * Marks from a compact script: "A@3 C@4 D1@6:5 D?@7" = kind, exit code (`?`: why=order), @line,
 * :column (default 1).
 */
function marks(script: string): CommandMark[] {
  return script.split(' ').map((word, i) => {
    const m = /^([ABCD])(\d*|\?)@(\d+)(?::(\d+))?$/.exec(word);
    if (!m) throw new Error(`bad mark ${word}`);
    const [, kind, code, line, column] = m;
    return {
      kind: kind as CommandMark['kind'],
      ...(code === '?' ? { why: 'order' as const } : code ? { exitCode: Number(code) } : {}),
      seq: i + 1,
      line: Number(line),
      column: Number(column ?? 1),
    };
  });
}

describe('command replay', () => {
  it('pairs C with the next D; the output ends on the line before a D at column 1', () => {
    const m = marks('A@1 C@2 D1@5 A@5');
    assert.deepEqual(findFinishedCommand(m, 0), {
      exitCode: 1,
      output: { fromLine: 2, toLine: 4 },
      endSeq: 3,
    });
  });

  it('output without a final newline ends on the D line', () => {
    assert.deepEqual(findFinishedCommand(marks('A@1 C@2 D0@2:4 A@2:4'), 0)?.output, {
      fromLine: 2,
      toLine: 2,
    });
  });

  it('a command with no output has no output lines', () => {
    assert.deepEqual(findFinishedCommand(marks('A@1 C@2 D0@2 A@2'), 0), {
      exitCode: 0,
      endSeq: 3,
    });
  });

  it('ignores a D without a C (empty command line, first prompt) and a second C', () => {
    const m = marks('D0@1 A@1 D0@2 A@2 C@3 C@4 D7@6 A@6');
    assert.deepEqual(findFinishedCommand(m, 0), {
      exitCode: 7,
      output: { fromLine: 3, toLine: 5 },
      endSeq: 7,
    });
  });

  it('an A ends a command left open (no D): it finished, its exit code unknown', () => {
    const m = marks('A@1 C@2 A@4 D3@6 A@6');
    const missing = { unknownExit: 'missing', output: { fromLine: 2, toLine: 3 }, endSeq: 3 };
    assert.deepEqual(findFinishedCommand(m, 0), missing);
    assert.deepEqual(commandState(m), { running: false, last: missing });
  });

  it('a D without an exit code: why=order, or unreported', () => {
    assert.deepEqual(findFinishedCommand(marks('A@1 C@2 D?@3 A@3'), 0), {
      unknownExit: 'order',
      output: { fromLine: 2, toLine: 2 },
      endSeq: 3,
    });
    const bare: CommandMark[] = [...marks('A@1 C@2'), { kind: 'D', seq: 3, line: 2, column: 1 }];
    assert.deepEqual(findFinishedCommand(bare, 0), { unknownExit: 'unreported', endSeq: 3 });
  });

  it('finds the first command finished after a mark, its C may be before it', () => {
    const m = marks('A@1 C@2 D0@3 A@3 C@4 D1@5 A@5 C@6 D2@7 A@7');
    assert.equal(findFinishedCommand(m, 0)?.exitCode, 0);
    assert.equal(findFinishedCommand(m, 3)?.exitCode, 1);
    assert.equal(findFinishedCommand(m, 5)?.exitCode, 1, 'C at seq 5, D at 6');
    assert.equal(findFinishedCommand(m, 6)?.exitCode, 2);
    assert.equal(findFinishedCommand(m, 10), undefined);
  });

  it('commandState: running with where the output starts, and the last finished', () => {
    assert.deepEqual(commandState(marks('A@1 C@2 D0@3 A@3 C@4')), {
      running: true,
      runningFrom: 4,
      last: { exitCode: 0, output: { fromLine: 2, toLine: 2 }, endSeq: 3 },
    });
    assert.deepEqual(commandState([]), { running: false });
  });
});

describe('Screen: OSC 133', () => {
  const ESC = '\x1b';
  const mark = (m: string, nonce = NONCE) => `${ESC}]133;${m};aid=${nonce}${ESC}\\`;

  async function screenAfter(output: string, nonce: string | null = NONCE) {
    const screen = new Screen({
      cols: 20,
      rows: 4,
      scrollback: 100,
      onReply: () => {},
      commandMarkNonce: nonce ?? undefined,
    });
    screen.write(Buffer.from(output, 'utf8'));
    await screen.whenParsed();
    return screen;
  }

  it('records marks at the cursor line (history lines, then rows) and shows none as text', async () => {
    // Six lines on a 4-row screen: two scroll into history.
    const output = `${mark('A')}$ ls\r\n${mark('C')}1\r\n2\r\n3\r\n4\r\n${mark('D;0')}${mark('A')}$ `;
    const screen = await screenAfter(output);
    assert.equal(screen.historyTotal, 2);
    assert.deepEqual(
      screen.commandMarks.map((m) => [m.kind, m.line, m.column, m.exitCode]),
      [
        ['A', 1, 1, undefined],
        ['C', 2, 1, undefined],
        ['D', 6, 1, 0],
        ['A', 6, 1, undefined],
      ],
    );
    assert.deepEqual(findFinishedCommand(screen.commandMarks, 0)?.output, {
      fromLine: 2,
      toLine: 5,
    });
    assert.deepEqual(
      screen.grid().screen.map((r) => r.trimEnd()),
      ['2', '3', '4', '$'],
      'no mark shows as text',
    );
    screen.dispose();
  });

  it('ignores marks without the nonce, marks on the alternate screen, and all without a nonce', async () => {
    const foreign = `${ESC}]133;D;0${ESC}\\${mark('D;1', 'ffffff')}`;
    const alternate = `${ESC}[?1049h${mark('C')}${ESC}[?1049l`;
    const screen = await screenAfter(`${foreign}${alternate}${mark('C')}x`);
    assert.deepEqual(
      screen.commandMarks.map((m) => m.kind),
      ['C'],
    );
    assert.equal(screen.commandMarkSeq, 1);
    assert.deepEqual(screen.grid().screen[0]?.trimEnd(), 'x');
    screen.dispose();
    const off = await screenAfter(`${mark('C')}y`, null);
    assert.equal(off.commandMarks.length, 0);
    assert.deepEqual(off.grid().screen[0]?.trimEnd(), 'y', 'xterm drops OSC 133 itself');
    off.dispose();
  });
});
