/**
 * The one steer ledger of a run (docs/reference/control-plane.md §8.3), owned by the plane: delivered counts per prompt, the
 * reservations of accepted steers (`used = delivered + pending`), the per-prompt budgets, and the queue of accepted
 * steers the runner has not yet taken for a delivery. A resumed run rebuilds it once, when its plane opens, from the
 * `interventions/` records of the same run id. The runner's steer desk (src/run/steering.ts) only reads it and takes
 * batches from its queue; every count changes through the plane (`steersDelivered`, `steerRejected`).
 */
import { steerDeliveriesForRun } from "./interventions.ts";

/** A steer that passed acceptance (docs/reference/control-plane.md §8.4). */
export interface AcceptedSteer {
  request: string;
  author: string;
  text: string;
  accepted_at: string;
  /** `control steer --interrupt`: stop the running turn rather than add to it (docs/reference/control-plane.md §8.2). */
  interrupt?: boolean;
}

/** Steer counts, reservations, budgets and the delivery queue of one run. */
export class SteerLedger {
  readonly #delivered = new Map<string, number>();
  /** Delivered steers per prompt by delivery kind (`in_turn`, `interrupt_and_resume`, …). */
  readonly #kinds = new Map<string, Record<string, number>>();
  /** Accepted and neither delivered nor rejected, by request name, in acceptance order: each holds a slot. */
  readonly #reserved = new Map<string, AcceptedSteer>();
  /** Accepted and not yet taken for a delivery, in acceptance order (a subset of the reservations). */
  #queued: AcceptedSteer[] = [];
  readonly #maxFor: (promptId: string) => number;

  /** `maxFor` is the budget of a prompt: its own `recovery.max_steers`, else the packet's. */
  constructor(maxFor: (promptId: string) => number) {
    this.#maxFor = maxFor;
  }

  /**
   * The ledger of a run reopened on `storeRoot`: delivered counts rebuilt from every `interventions/*.jsonl` record
   * of `runId` (none for a new run id), nothing reserved.
   */
  static rebuilt(storeRoot: string, runId: string, maxFor: (promptId: string) => number): SteerLedger {
    const ledger = new SteerLedger(maxFor);
    for (const [id, kinds] of steerDeliveriesForRun(storeRoot, runId)) {
      ledger.#kinds.set(id, kinds);
      ledger.#delivered.set(id, Object.values(kinds).reduce((a, b) => a + b, 0));
    }
    return ledger;
  }

  /** Steers delivered to a prompt in this run. */
  count(promptId: string): number {
    return this.#delivered.get(promptId) ?? 0;
  }

  /** Steers delivered to a prompt in this run, by how they were delivered (a copy). */
  deliveries(promptId: string): Record<string, number> {
    return { ...this.#kinds.get(promptId) };
  }

  /** The steer budget of a prompt. */
  max(promptId: string): number {
    return this.#maxFor(promptId);
  }

  /** Slots taken against a prompt's budget: its delivered steers plus every reservation (docs/reference/control-plane.md §8.3). */
  used(promptId: string): number {
    return this.count(promptId) + this.#reserved.size;
  }

  /** Accepted steers not yet delivered or rejected (`steers_pending`). */
  get pending(): number {
    return this.#reserved.size;
  }

  /** Accepted steers waiting for the runner to take them, in acceptance order. */
  get queued(): readonly AcceptedSteer[] {
    return this.#queued;
  }

  /** Every reservation, in acceptance order (what a closing plane rejects). */
  reservations(): AcceptedSteer[] {
    return [...this.#reserved.values()];
  }

  /** A steer passed acceptance: reserve its slot and queue it for delivery. */
  reserve(steer: AcceptedSteer): void {
    this.#reserved.set(steer.request, steer);
    this.#queued.push(steer);
  }

  /** Take every queued steer for one delivery; they keep their slots until delivered or rejected. */
  take(): AcceptedSteer[] {
    const batch = this.#queued;
    this.#queued = [];
    return batch;
  }

  /**
   * Put steers taken for a delivery that did not reach the session back at the head of the queue, in their order
   * (an in-turn write the session refused: the attempt loop then delivers them by resuming the session).
   */
  requeue(steers: readonly AcceptedSteer[]): void {
    const back = steers.filter((s) => this.#reserved.has(s.request) && !this.#queued.includes(s));
    this.#queued = [...back, ...this.#queued];
  }

  /** One steer was delivered to `promptId`: count it and release its reservation. Returns the prompt's new count. */
  delivered(promptId: string, steer: AcceptedSteer, delivery = "interrupt_and_resume"): number {
    const count = this.counted(promptId, delivery);
    this.#release(steer);
    return count;
  }

  /**
   * Count a delivery against the prompt's budget without a reservation: one known only from its `applied` log entry
   * (its intervention record could not be written), found when the plane reopens. Returns the prompt's count.
   */
  counted(promptId: string, delivery = "interrupt_and_resume"): number {
    const count = this.count(promptId) + 1;
    this.#delivered.set(promptId, count);
    const kinds = this.#kinds.get(promptId) ?? {};
    kinds[delivery] = (kinds[delivery] ?? 0) + 1;
    this.#kinds.set(promptId, kinds);
    return count;
  }

  /** A steer could not be delivered: release its slot (and drop it from the queue if it was never taken). */
  rejected(steer: AcceptedSteer): void {
    this.#release(steer);
  }

  #release(steer: AcceptedSteer): void {
    this.#reserved.delete(steer.request);
    if (this.#queued.includes(steer)) this.#queued = this.#queued.filter((s) => s !== steer);
  }
}
