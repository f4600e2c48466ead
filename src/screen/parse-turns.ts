/**
 * Turns of parsing shared by every screen of the server: output is parsed a piece at a time,
 * screens taking turns, for at most TURN_BUDGET_MS of one event-loop turn, after which the loop
 * goes back to its I/O (a client's request, other terminals' output) before parsing on. So one
 * session's flood never holds up a call about another session for longer than a piece, and a
 * single session still parses as fast as the emulator can: the loop turns over at once while
 * there is work. A piece's replies are written once (reply-batch.ts), so a flood of queries costs
 * one write a piece.
 */

/** What a screen does with its turn: parses one piece; true while it has more to parse. */
export interface ParseWork {
  parseStep(): boolean;
}

/** Parsing one event-loop turn may do before I/O runs again (one piece may run past it). */
const TURN_BUDGET_MS = 4;

export class ParseTurns {
  private readonly _waiting = new Set<ParseWork>();
  private _scheduled = false;
  /** The work whose step runs now, until it is cancelled meanwhile. */
  private _running: ParseWork | undefined;

  constructor(
    private readonly _budgetMs = TURN_BUDGET_MS,
    private readonly _now: () => number = () => performance.now(),
  ) {}

  /** `work` has something to parse: it gets turns until its parseStep says it is done. */
  request(work: ParseWork): void {
    this._waiting.add(work);
    if (this._scheduled) return;
    this._scheduled = true;
    setImmediate(() => this._turn());
  }

  /** `work` is going away: no more turns. */
  cancel(work: ParseWork): void {
    this._waiting.delete(work);
    if (this._running === work) this._running = undefined;
  }

  private _turn(): void {
    this._scheduled = false;
    const started = this._now();
    // Round robin: each waiting screen parses a piece, in the order they asked, until the budget
    // is spent; a screen with more to parse goes to the back.
    while (this._waiting.size > 0 && this._now() - started < this._budgetMs) {
      for (const work of this._waiting) {
        this._waiting.delete(work);
        this._running = work;
        if (work.parseStep() && this._running === work) this._waiting.add(work);
        this._running = undefined;
        if (this._now() - started >= this._budgetMs) break;
      }
    }
    if (this._waiting.size > 0 && !this._scheduled) {
      this._scheduled = true;
      setImmediate(() => this._turn());
    }
  }
}

/** The turns every screen of this process shares. */
export const sharedParseTurns = new ParseTurns();
