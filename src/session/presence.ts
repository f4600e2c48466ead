/**
 * Who besides the agent is at a session: how many people watch it (`agent-tty attach`) and
 * whether one of them typed since the agent last heard about it. Every result for the session
 * reports both (then the typed flag starts over), so an agent does not type over a person.
 */
export interface PresenceReport {
  /** People attached now. */
  readonly watchers: number;
  /** Whether a person typed since the last report. */
  readonly personTyped: boolean;
}

export class Presence {
  private _watchers = 0;
  private _typists = 0;
  private _typed = false;
  private _typedCount = 0;

  get watchers(): number {
    return this._watchers;
  }

  /** People attached now who may type (not read-only). */
  get typists(): number {
    return this._typists;
  }

  /** How many times a person has typed since the session started (never starts over). */
  get typedCount(): number {
    return this._typedCount;
  }

  /**
   * Counts one more watcher (`canType`: attached with write access); the returned function
   * (idempotent) counts it out.
   */
  join(canType = true): () => void {
    this._watchers++;
    if (canType) this._typists++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this._watchers--;
      if (canType) this._typists--;
    };
  }

  markTyped(): void {
    this._typed = true;
    this._typedCount++;
  }

  /** What to report now; the typed flag starts over. */
  take(): PresenceReport {
    const report = { watchers: this._watchers, personTyped: this._typed };
    this._typed = false;
    return report;
  }
}
