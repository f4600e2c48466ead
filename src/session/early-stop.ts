/**
 * When a wait ends early because the program asks for input instead (an unexpected prompt). The
 * rule, decided from samples: continuously for INPUT_QUIET_MS, the foreground program waits on
 * the terminal and nothing else that can wake it (pty/input-wait.ts) and uses next to no CPU, no
 * output arrives,
 * no input sent to it is still unread, and no other process of the terminal's session could
 * print on its own. A program that polls the terminal
 * with a short timeout (up to REFRESH_MS: top and htop refreshing) must stay quiet for one whole
 * timeout more, so a refresh it prints is seen first. The tracker then confirms the stop through
 * an output barrier, and the wait (wait.ts) checks on that up-to-date screen that its condition
 * still does not hold. Needs the input-wait probe (Linux).
 * @see spec/tools.md (terminal_input: early stop)
 */

/** Quiet, while the program waits for input, after which a wait ends early. */
export const INPUT_QUIET_MS = 300;
/**
 * A wait for input with a timeout up to this long is a refresh loop (top's 3 s, htop's 1.5 s):
 * its timeout is waited out. Longer ones (vim's 4 s `updatetime`, npm's timers) count like none.
 */
export const REFRESH_MS = 3000;
/** How often a wait samples the program while it may stop early. */
export const STOP_SAMPLE_MS = 20;
/** How often the session's other processes are scanned while the rest says stop (a /proc scan). */
export const OTHERS_SCAN_MS = 100;
/** CPU the foreground group may use during a run: this much, plus a tenth of the run's length. */
export const CPU_SLACK_MS = 20;

/** One look at the program. */
export interface StopSample {
  readonly at: number;
  /** How long its wait for input may last (Infinity: no timeout); undefined: it does not wait. */
  readonly waitingMs: number | undefined;
  /** CPU time its foreground process group has used so far (read with waitingMs). */
  readonly cpuMs: number;
  /** Output chunks parsed so far: any change is output. */
  readonly parses: number;
  /** Output received but not parsed yet, or a synchronized update in progress. */
  readonly busy: boolean;
  /** Input sent that the terminal has not taken yet. */
  readonly pendingInputBytes: number;
  /** No other process of the session could print on its own. */
  readonly othersIdle: boolean;
}

/** A run of samples that all say stop. */
export interface StopState {
  /** When the run began. */
  readonly since: number;
  /** Output chunks parsed when it began. */
  readonly parses: number;
  /** CPU time of the foreground group when it began. */
  readonly cpuMs: number;
  /** Quiet it needs before the wait stops. */
  readonly needMs: number;
}

/** The quiet a wait for input with this timeout needs before a wait stops early. */
export function quietNeededMs(waitingMs: number): number {
  return waitingMs <= REFRESH_MS ? waitingMs + INPUT_QUIET_MS : INPUT_QUIET_MS;
}

/** CPU time a program waiting for input may use during a run of `elapsedMs` (timers, ticks). */
export function cpuAllowedMs(elapsedMs: number): number {
  return CPU_SLACK_MS + elapsedMs / 10;
}

/** Whether a sample says stop, on everything but the session's other processes. */
function isStopCandidate(sample: Omit<StopSample, 'othersIdle'>): boolean {
  return sample.waitingMs !== undefined && !sample.busy && sample.pendingInputBytes === 0;
}

/** The run of samples after `sample`: undefined when the sample breaks it. */
export function nextStopState(
  state: StopState | undefined,
  sample: StopSample,
): StopState | undefined {
  if (!isStopCandidate(sample) || !sample.othersIdle) return undefined;
  const needMs = quietNeededMs(sample.waitingMs as number);
  if (
    state === undefined ||
    state.parses !== sample.parses ||
    sample.cpuMs - state.cpuMs > cpuAllowedMs(sample.at - state.since)
  ) {
    return { since: sample.at, parses: sample.parses, cpuMs: sample.cpuMs, needMs };
  }
  return { ...state, needMs: Math.max(state.needMs, needMs) };
}

/** Whether the run has lasted long enough for the wait to stop (after confirmation). */
export function isStopDue(state: StopState | undefined, now: number): boolean {
  return state !== undefined && now - state.since >= state.needMs;
}

/** What a tracker reads from a session. */
export interface StopSource {
  readonly parseCount: number;
  readonly pendingBytes: number;
  readonly pendingInputBytes: number;
  isSynchronizedUpdate(): boolean;
  inputWait(): { readonly waitMs: number; readonly cpuMs: number } | undefined;
  othersIdle(): boolean;
  /**
   * Resolves true once all output the program wrote so far has been received and parsed (an
   * output barrier) and it still waits for input.
   */
  confirmInputWait(): Promise<boolean>;
}

/**
 * Samples a session and keeps the current run, then confirms a stop that is due. The other
 * processes are scanned only when the rest of a sample says stop, at most every OTHERS_SCAN_MS,
 * and once more when the stop is confirmed.
 */
export class InputStopTracker {
  private _state: StopState | undefined;
  private _othersAt = Number.NEGATIVE_INFINITY;
  private _othersIdle = false;
  private _isConfirming = false;

  constructor(private readonly _source: StopSource) {}

  /**
   * Takes a sample at `now`; true when the stop is due, for the caller to confirm(). False,
   * without a sample, while a confirmation runs.
   */
  poll(now: number): boolean {
    if (this._isConfirming) return false;
    const s = this._source;
    const parses = s.parseCount;
    if (this._state !== undefined && this._state.parses !== parses) this._state = undefined;
    const cheap = {
      at: now,
      parses,
      busy: s.pendingBytes > 0 || s.isSynchronizedUpdate(),
      pendingInputBytes: s.pendingInputBytes,
    };
    // The probe reads /proc: skipped while output streams in.
    const wait = cheap.busy ? undefined : s.inputWait();
    const sample = { ...cheap, waitingMs: wait?.waitMs, cpuMs: wait?.cpuMs ?? 0 };
    let othersIdle = false;
    if (isStopCandidate(sample)) {
      if (now - this._othersAt >= OTHERS_SCAN_MS) {
        this._othersAt = now;
        this._othersIdle = s.othersIdle();
      }
      othersIdle = this._othersIdle;
    }
    this._state = nextStopState(this._state, { ...sample, othersIdle });
    return isStopDue(this._state, now);
  }

  /** Whether a confirmation runs. */
  get isConfirming(): boolean {
    return this._isConfirming;
  }

  /**
   * Confirms a due stop: an output barrier shows nothing more was on its way, no output was
   * parsed meanwhile, and a fresh scan still says stop. Resolves with the output chunks parsed
   * then (the screen the caller's next check of its condition decides on), or undefined when the
   * stop does not hold (the run starts over).
   */
  async confirm(): Promise<number | undefined> {
    this._isConfirming = true;
    const parses = this._source.parseCount;
    let ok = false;
    try {
      ok = await this._source.confirmInputWait();
    } catch {
      ok = false;
    } finally {
      this._isConfirming = false;
    }
    if (ok && this._source.parseCount === parses && this._recheck()) return parses;
    this.reset();
    return undefined;
  }

  /** Whether the stop still holds on a fresh scan (after the output barrier). */
  private _recheck(): boolean {
    if (this._state === undefined || this._state.parses !== this._source.parseCount) return false;
    return this._source.pendingInputBytes === 0 && this._source.othersIdle();
  }

  /** How long the current run has lasted at `now`. */
  quietMs(now: number): number {
    return this._state === undefined ? 0 : Math.round(now - this._state.since);
  }

  /** Starts over: the next sample begins a new run. */
  reset(): void {
    this._state = undefined;
    this._othersAt = Number.NEGATIVE_INFINITY;
  }
}
