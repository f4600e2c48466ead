/**
 * Who may type into a session now, and how much: the agent's batches (through the session's
 * queue) and the people attached to it (agent-tty attach, straight to the program). Two rules:
 * - room: input the program has not read stays under LIMITS.maxPendingInputBytes. A batch is
 *   checked before it sends anything (INPUT_BACKLOG) and its bytes are claimed until it sends
 *   them, so a person typing during its waits cannot take the room;
 * - no interleaving: while the agent sends a run of actions (everything between two of its
 *   waits), a person's input is held and delivered after the run, so it never lands between,
 *   say, the agent's text and its Enter.
 */
import { LIMITS } from '../shared/config.js';
import { TerminalError } from '../shared/errors.js';

/** The terminal's queue of input the program has not read (pty/input-writer.ts). */
export interface InputRoom {
  /** Input bytes sent that the terminal has not taken yet. */
  readonly pendingInputBytes: number;
  /** Whether `bytes` more input fit under the limit of input the program has not read. */
  hasInputRoom(bytes: number): boolean;
}

/** The program's end of the gate (a Session). */
export interface GateTarget {
  /** Whether the program can still take input (running, and the session open). */
  isOpen(): boolean;
  /** Writes to the program (and records it as input). */
  deliver(data: Uint8Array): void;
  /** A person's input was accepted. */
  onPersonInput(): void;
}

export class InputGate {
  /** While the agent's batch sends a run of actions: what a person typed meanwhile, in order. */
  private _held: Uint8Array[] | undefined;
  private _heldBytes = 0;
  /** What the running batch was checked for and has not sent yet: room a person cannot take. */
  private _claimedBytes = 0;

  constructor(
    private readonly _sessionId: string,
    private readonly _room: InputRoom,
    private readonly _target: GateTarget,
  ) {}

  /**
   * Refuses, with INPUT_BACKLOG, a batch whose `bytes` would put more than the limit in the
   * queue of input the program has not read. Checked before a batch sends anything.
   */
  assertRoom(bytes: number): void {
    if (!this._target.isOpen() || this._room.hasInputRoom(bytes)) return;
    const pendingBytes = this._room.pendingInputBytes;
    throw new TerminalError(
      'INPUT_BACKLOG',
      `session "${this._sessionId}" holds ${pendingBytes} bytes of input the program has not read, and ${bytes} more would pass the ${LIMITS.maxPendingInputBytes}-byte limit; nothing was sent: wait until the program reads (watch it with terminal_snapshot), send less, or close the session with terminal_close`,
      {
        sessionId: this._sessionId,
        pendingBytes,
        batchBytes: bytes,
        limitBytes: LIMITS.maxPendingInputBytes,
      },
    );
  }

  /** The running batch's input, checked to fit: claimed until it is sent or `release`d. */
  claim(bytes: number): void {
    this._claimedBytes = bytes;
  }

  release(): void {
    this._claimedBytes = 0;
  }

  /** Sends the agent's bytes (the caller has checked the session runs). */
  fromAgent(data: Uint8Array): void {
    this._claimedBytes = Math.max(0, this._claimedBytes - data.length);
    this._target.deliver(data);
  }

  /**
   * A person's keys: sent now, or held until the agent's run ends. False, sending nothing, when
   * the program cannot take input or the keys would pass the limit, counting what is held and
   * what the running batch has claimed.
   */
  fromPerson(data: Uint8Array): boolean {
    const target = this._target;
    if (
      !target.isOpen() ||
      !this._room.hasInputRoom(this._claimedBytes + this._heldBytes + data.length)
    ) {
      return false;
    }
    target.onPersonInput();
    if (this._held) {
      this._held.push(data);
      this._heldBytes += data.length;
    } else {
      target.deliver(data);
    }
    return true;
  }

  /** The agent's batch starts sending a run of actions: a person's input is held meanwhile. */
  beginAgentRun(): void {
    this._held ??= [];
  }

  /** The run is sent (or the batch stopped): what a person typed meanwhile goes to the program. */
  endAgentRun(): void {
    const held = this._held;
    this._held = undefined;
    this._heldBytes = 0;
    if (!held || !this._target.isOpen()) return;
    for (const data of held) this._target.deliver(data);
  }
}
