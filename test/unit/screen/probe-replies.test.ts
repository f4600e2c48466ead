import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { installProbeReplies, paletteColor, x11Color } from '../../../src/screen/probe-replies.js';
import { Screen } from '../../../src/screen/screen.js';
import { createTerminal, type Terminal } from '../../../src/screen/xterm.js';
import { PACKAGE } from '../../../src/shared/version.js';

const ST = '\x1b\\';

function write(term: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

/** Replies of installProbeReplies alone to `data`. */
async function repliesTo(data: string, version = '1.2.3'): Promise<string[]> {
  const term = createTerminal({ cols: 20, rows: 4, scrollback: 0 });
  const replies: string[] = [];
  const hooks = installProbeReplies(term, (reply) => replies.push(reply), version);
  await write(term, data);
  for (const hook of hooks) hook.dispose();
  term.dispose();
  return replies;
}

describe('paletteColor and x11Color', () => {
  const palette: [number, number][] = [
    [0, 0x2e3436],
    [1, 0xcc0000],
    [15, 0xeeeeec],
    [16, 0x000000],
    [17, 0x00005f],
    [196, 0xff0000],
    [231, 0xffffff],
    [232, 0x080808],
    [255, 0xeeeeee],
  ];
  for (const [index, rgb] of palette) {
    it(`palette ${index} -> #${rgb.toString(16).padStart(6, '0')}`, () => {
      assert.equal(paletteColor(index), rgb);
    });
  }

  it('formats 16 bits per channel', () => {
    assert.equal(x11Color(0xffffff), 'rgb:ffff/ffff/ffff');
    assert.equal(x11Color(0x000000), 'rgb:0000/0000/0000');
    assert.equal(x11Color(0x12ab0f), 'rgb:1212/abab/0f0f');
  });
});

describe('installProbeReplies', () => {
  const cases: [string, string, string[]][] = [
    ['XTVERSION', '\x1b[>q', [`\x1bP>|agent-tty(1.2.3)${ST}`]],
    ['XTVERSION with 0', '\x1b[>0q', [`\x1bP>|agent-tty(1.2.3)${ST}`]],
    ['foreground', '\x1b]10;?\x07', [`\x1b]10;rgb:ffff/ffff/ffff${ST}`]],
    ['background', '\x1b]11;?\x1b\\', [`\x1b]11;rgb:0000/0000/0000${ST}`]],
    ['cursor colour', '\x1b]12;?\x07', [`\x1b]12;rgb:ffff/ffff/ffff${ST}`]],
    [
      'foreground and background in one OSC 10',
      '\x1b]10;?;?\x07',
      [`\x1b]10;rgb:ffff/ffff/ffff${ST}`, `\x1b]11;rgb:0000/0000/0000${ST}`],
    ],
    ['palette entry 1', '\x1b]4;1;?\x07', [`\x1b]4;1;rgb:cccc/0000/0000${ST}`]],
    [
      'two palette entries',
      '\x1b]4;1;?;196;?\x07',
      [`\x1b]4;1;rgb:cccc/0000/0000${ST}`, `\x1b]4;196;rgb:ffff/0000/0000${ST}`],
    ],
    ['palette index out of range', '\x1b]4;256;?\x07', []],
    ['palette index not a number', '\x1b]4;x;?\x07', []],
    ['a colour change is not a query', '\x1b]10;#ff0000\x07\x1b]4;1;#00ff00\x07', []],
    ['the title is no probe', '\x1b]0;title\x07', []],
  ];
  for (const [name, data, expected] of cases) {
    it(name, async () => {
      assert.deepEqual(await repliesTo(data), expected);
    });
  }

  it('stops replying once disposed', async () => {
    const term = createTerminal({ cols: 20, rows: 4, scrollback: 0 });
    const replies: string[] = [];
    for (const hook of installProbeReplies(term, (r) => replies.push(r), '1')) hook.dispose();
    await write(term, '\x1b]10;?\x07\x1b]4;1;?\x07');
    assert.deepEqual(replies, []);
    term.dispose();
  });
});

describe('Screen replies', () => {
  async function screenReplies(data: string): Promise<string[]> {
    const replies: string[] = [];
    const screen = new Screen({
      cols: 20,
      rows: 4,
      scrollback: 0,
      onReply: (bytes) => replies.push(Buffer.from(bytes).toString('utf8')),
    });
    screen.write(Buffer.from(data, 'utf8'));
    await screen.whenParsed();
    screen.dispose();
    return replies;
  }

  const cases: [string, string, string[]][] = [
    ['DA1 answered once by xterm', '\x1b[c', ['\x1b[?1;2c']],
    ['DSR status', '\x1b[5n', ['\x1b[0n']],
    ['cursor position report', '\x1b[2;5H\x1b[6n', ['\x1b[2;5R']],
    [
      'XTVERSION with the package version',
      '\x1b[>q',
      [`\x1bP>|agent-tty(${PACKAGE.version})${ST}`],
    ],
    ['kitty keyboard query', '\x1b[>5u\x1b[?u', ['\x1b[?5u']],
    ['background colour', '\x1b]11;?\x07', [`\x1b]11;rgb:0000/0000/0000${ST}`]],
  ];
  for (const [name, data, expected] of cases) {
    it(name, async () => {
      assert.deepEqual(await screenReplies(data), expected);
    });
  }

  it('answers a burst of probes in order, in one write', async () => {
    assert.deepEqual(await screenReplies('\x1b[c\x1b[>q\x1b[?u\x1b]10;?\x07\x1b[6n'), [
      [
        '\x1b[?1;2c',
        `\x1bP>|agent-tty(${PACKAGE.version})${ST}`,
        '\x1b[?0u',
        `\x1b]10;rgb:ffff/ffff/ffff${ST}`,
        '\x1b[1;1R',
      ].join(''),
    ]);
  });

  // Issue 35, S10: a program writing ESC [ 6 n in a loop made the screen write 8 192 replies per
  // 32 KiB piece, one synchronous write (and one look at /proc) each, holding the server's thread
  // for 100-250 ms a piece. Each piece's replies are now one write, of at most 64 KiB.
  const PIECE = 32 * 1024;
  it('answers a flood of cursor-position queries with one write per parsed piece', async () => {
    const queries = 4 * 8192; // 128 KiB of output: 4 pieces
    const replies = await screenReplies('\x1b[6n'.repeat(queries));
    assert.ok(
      replies.length <= Math.ceil((queries * 4) / PIECE) + 1,
      `${replies.length} writes for ${queries} queries`,
    );
    assert.equal(replies.join(''), '\x1b[1;1R'.repeat(queries), 'every query answered, in order');
  });

  it('writes at most 64 KiB of replies for one piece, whatever it asks', async () => {
    // 8 192 XTVERSION queries in 32 KiB ask for about 200 KB of replies.
    const queries = 8192;
    const replies = await screenReplies('\x1b[>q'.repeat(queries));
    const one = `\x1bP>|agent-tty(${PACKAGE.version})${ST}`;
    assert.ok(replies.length <= 2, `${replies.length} writes`);
    for (const reply of replies) assert.ok(Buffer.byteLength(reply) <= 64 * 1024);
    const answered = (replies[0] ?? '').split(one).length - 1;
    assert.equal(answered, Math.floor((64 * 1024) / one.length), 'the first piece fills 64 KiB');
  });
});
