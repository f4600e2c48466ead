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
  private _typed = false;

  get watchers(): number {
    return this._watchers;
  }

  /** Counts one more watcher; the returned function (idempotent) counts it out. */
  join(): () => void {
    this._watchers++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this._watchers--;
    };
  }

  markTyped(): void {
    this._typed = true;
  }

  /** What to report now; the typed flag starts over. */
  take(): PresenceReport {
    const report = { watchers: this._watchers, personTyped: this._typed };
    this._typed = false;
    return report;
  }
}
