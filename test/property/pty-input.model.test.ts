/**
 * Model-based test of the input path (src/pty/input-writer.ts) across several sessions: random
 * interleavings of starts, input (small and large), probe replies, programs reading or not,
 * natural exits (the program's side closing before or after agent-tty hears of it), closes,
 * resizes and the passing of time, on real InputWriters over a model kernel whose descriptor
 * table reuses the lowest free number at once, as POSIX requires.
 *
 * Invariants: no byte is ever written to a descriptor that is closed (EBADF) or that belongs to
 * another session's terminal; nothing is written for a session after it is closed or its
 * terminal is gone; each terminal receives a prefix of exactly what its session queued, in
 * order; queued input and replies stay within their bounds. The real PTY counterpart, with
 * screens, is test/e2e/cross-session.test.ts.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { InputWriter, type Timers } from '../../src/pty/input-writer.js';

const INPUT_LIMIT = 4096;
const REPLY_LIMIT = 256;
const RUNS = Number(process.env.AGENT_TTY_MODEL_RUNS ?? 10_000);

class Clock implements Timers {
  now = 0;
  private _next = 1;
  private readonly _due = new Map<number, { at: number; fn: () => void }>();
  set(fn: () => void, ms: number): unknown {
    const id = this._next++;
    this._due.set(id, { at: this.now + Math.max(1, ms), fn });
    return id;
  }
  clear(handle: unknown): void {
    this._due.delete(handle as number);
  }
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      let first: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this._due) if (!first || entry[1].at < first[1].at) first = entry;
      if (!first || first[1].at > end) break;
      this._due.delete(first[0]);
      this.now = first[1].at;
      first[1].fn();
    }
    this.now = end;
  }
}

/** A terminal in the model kernel: its input buffer and what its program has read. */
interface Tty {
  readonly session: number;
  readonly capacity: number;
  buffered: number[];
  read: number[];
  /** The program's side is gone: writes fail with EIO. */
  hungUp: boolean;
}

class Kernel {
  readonly files = new Map<number, Tty>();
  readonly violations: string[] = [];

  open(tty: Tty): number {
    let fd = 3;
    while (this.files.has(fd)) fd++;
    this.files.set(fd, tty);
    return fd;
  }

  close(fd: number): void {
    this.files.delete(fd);
  }

  write(caller: Model, fd: number, data: Uint8Array, offset: number, length: number): number {
    if (caller.closed) caller.world.violations.push(`${caller.name} wrote after it was closed`);
    const tty = this.files.get(fd);
    if (!tty) {
      caller.world.violations.push(`${caller.name} wrote to closed descriptor ${fd}`);
      throw Object.assign(new Error('EBADF'), { code: 'EBADF' });
    }
    if (tty.session !== caller.index) {
      caller.world.violations.push(
        `${caller.name} wrote to descriptor ${fd}, which is session ${tty.session}'s terminal`,
      );
    }
    if (tty.hungUp) throw Object.assign(new Error('EIO'), { code: 'EIO' });
    const room = tty.capacity - tty.buffered.length;
    if (room === 0) throw Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' });
    const taken = Math.min(room, length, caller.world.partial ? 1 + (length >> 1) : length);
    for (let i = 0; i < taken; i++) tty.buffered.push(data[offset + i] as number);
    return taken;
  }
}

class World {
  readonly kernel = new Kernel();
  readonly clock = new Clock();
  readonly sessions: Model[] = [];
  readonly violations: string[] = [];
  constructor(readonly partial: boolean) {}
}

/** One session as the PTY handle has it: the writer, and the descriptor it may use. */
class Model {
  readonly name: string;
  readonly tty: Tty;
  readonly writer: InputWriter;
  /** Everything queued for the program, in order. */
  readonly queued: number[] = [];
  fd: number | undefined;
  closed = false;

  constructor(
    readonly world: World,
    readonly index: number,
    capacity: number,
  ) {
    this.name = `t${index}`;
    this.tty = { session: index, capacity, buffered: [], read: [], hungUp: false };
    this.fd = world.kernel.open(this.tty);
    this.writer = new InputWriter(
      { current: () => this.fd },
      {
        limitBytes: INPUT_LIMIT,
        replyLimitBytes: REPLY_LIMIT,
        write: (fd, data, offset, length) => world.kernel.write(this, fd, data, offset, length),
        timers: world.clock,
      },
    );
  }

  /** Bytes tagged with the session, so a stray byte names its owner. */
  bytes(length: number, reply: boolean): Uint8Array {
    const tag = (this.index % 64) * 2 + (reply ? 1 : 0);
    return Uint8Array.from({ length }, () => 0x80 | (tag & 0x7f));
  }

  /** node-pty's stream is destroyed: the descriptor is closed in the same step. */
  releaseFd(): void {
    if (this.fd === undefined) return;
    this.world.kernel.close(this.fd);
    this.fd = undefined;
  }
}

type Cmd = fc.Command<World, World>;

const pick = (world: World, n: number) =>
  world.sessions.length === 0 ? undefined : world.sessions[n % world.sessions.length];

class Start implements Cmd {
  constructor(readonly capacity: number) {}
  check = (w: World) => w.sessions.length < 6;
  run(_: World, w: World) {
    w.sessions.push(new Model(w, w.sessions.length, this.capacity));
  }
  toString = () => `start(${this.capacity})`;
}

class Input implements Cmd {
  constructor(
    readonly n: number,
    readonly length: number,
  ) {}
  check = () => true;
  run(_: World, w: World) {
    const s = pick(w, this.n);
    if (!s || s.closed || s.tty.hungUp) return;
    if (!s.writer.hasRoom(this.length)) return;
    const data = s.bytes(this.length, false);
    s.queued.push(...data);
    s.writer.write(data);
  }
  toString = () => `input(${this.n}, ${this.length})`;
}

class Reply implements Cmd {
  constructor(
    readonly n: number,
    readonly length: number,
  ) {}
  check = () => true;
  run(_: World, w: World) {
    const s = pick(w, this.n);
    if (!s || s.closed || s.tty.hungUp) return;
    const data = s.bytes(this.length, true);
    if (s.writer.reply(data)) s.queued.push(...data);
  }
  toString = () => `reply(${this.n}, ${this.length})`;
}

class Read implements Cmd {
  constructor(
    readonly n: number,
    readonly length: number,
  ) {}
  check = () => true;
  run(_: World, w: World) {
    const s = pick(w, this.n);
    if (!s || s.tty.hungUp) return;
    s.tty.read.push(...s.tty.buffered.splice(0, this.length));
  }
  toString = () => `read(${this.n}, ${this.length})`;
}

/** The program exits: its side hangs up; node-pty's stream closes later (ExitClose). */
class Exit implements Cmd {
  constructor(readonly n: number) {}
  check = () => true;
  run(_: World, w: World) {
    const s = pick(w, this.n);
    if (s) s.tty.hungUp = true;
  }
  toString = () => `exit(${this.n})`;
}

/** After an exit, node-pty's read fails and its stream is destroyed; the exit is heard later. */
class ExitClose implements Cmd {
  constructor(
    readonly n: number,
    readonly heard: boolean,
  ) {}
  check = () => true;
  run(_: World, w: World) {
    const s = pick(w, this.n);
    if (!s?.tty.hungUp) return;
    s.releaseFd();
    if (this.heard) s.writer.close();
  }
  toString = () => `exitClose(${this.n}, heard: ${this.heard})`;
}

/** terminal_close: dispose closes the writer, then destroys the stream. */
class Close implements Cmd {
  constructor(readonly n: number) {}
  check = () => true;
  run(_: World, w: World) {
    const s = pick(w, this.n);
    if (!s) return;
    s.writer.close();
    s.closed = true;
    s.releaseFd();
  }
  toString = () => `close(${this.n})`;
}

/** A resize is an ioctl on the descriptor the handle holds, only while it is the session's. */
class Resize implements Cmd {
  constructor(readonly n: number) {}
  check = () => true;
  run(_: World, w: World) {
    const s = pick(w, this.n);
    if (!s || s.closed) return;
    const fd = s.fd;
    if (fd === undefined) return;
    const owner = w.kernel.files.get(fd);
    if (owner !== s.tty) w.violations.push(`${s.name} resized descriptor ${fd}, not its terminal`);
  }
  toString = () => `resize(${this.n})`;
}

class Tick implements Cmd {
  constructor(readonly ms: number) {}
  check = () => true;
  run(_: World, w: World) {
    w.clock.advance(this.ms);
  }
  toString = () => `tick(${this.ms})`;
}

function checkWorld(w: World): void {
  assert.deepEqual(w.violations, []);
  for (const s of w.sessions) {
    const received = [...s.tty.read, ...s.tty.buffered];
    assert.deepEqual(
      received,
      s.queued.slice(0, received.length),
      `${s.name} received a prefix of what it queued, in order`,
    );
    assert.ok(s.writer.pendingBytes <= INPUT_LIMIT, `${s.name} input within its bound`);
    if (s.closed || s.fd === undefined) assert.equal(s.writer.pendingBytes, 0);
  }
}

const commands = fc.commands(
  [
    fc.integer({ min: 1, max: 600 }).map((c) => new Start(c)),
    fc
      .tuple(
        fc.nat(),
        fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 500, max: 4096 })),
      )
      .map(([n, len]) => new Input(n, len)),
    fc.tuple(fc.nat(), fc.integer({ min: 1, max: 12 })).map(([n, len]) => new Reply(n, len)),
    fc.tuple(fc.nat(), fc.integer({ min: 1, max: 2000 })).map(([n, len]) => new Read(n, len)),
    fc.nat().map((n) => new Exit(n)),
    fc.tuple(fc.nat(), fc.boolean()).map(([n, heard]) => new ExitClose(n, heard)),
    fc.nat().map((n) => new Close(n)),
    fc.nat().map((n) => new Resize(n)),
    fc.integer({ min: 0, max: 40 }).map((ms) => new Tick(ms)),
  ],
  { maxCommands: 60 },
);

it(`input goes only to its own terminal (${RUNS} interleavings)`, () => {
  fc.assert(
    fc.property(fc.boolean(), commands, (partial, cmds) => {
      const world = new World(partial);
      fc.modelRun(() => ({ model: world, real: world }), cmds);
      world.clock.advance(1000);
      checkWorld(world);
    }),
    { numRuns: RUNS },
  );
});

it('finds the fault when the writer ignores a closed descriptor', () => {
  // The same model over a writer that keeps writing to the number it was given: the property
  // must catch the reuse, or it proves nothing.
  const world = new World(false);
  const first = new Model(world, 0, 8);
  const stale = first.fd as number;
  const blind = new InputWriter(
    { current: () => stale },
    {
      limitBytes: INPUT_LIMIT,
      replyLimitBytes: REPLY_LIMIT,
      write: (fd, data, offset, length) => world.kernel.write(first, fd, data, offset, length),
      timers: world.clock,
    },
  );
  blind.write(first.bytes(64, false));
  first.releaseFd();
  world.sessions.push(first, new Model(world, 1, 4096));
  world.clock.advance(100);
  assert.match(world.violations.join('\n'), /session 1's terminal/);
});
