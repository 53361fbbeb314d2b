/**
 * The runner side of steering (docs/reference/control-plane.md §8.5): accepted steers queue per attempt; once the lane is ready
 * the live turn is interrupted (grace → SIGTERM → SIGKILL in the lane), and the attempt loop resumes the same
 * session with every queued steer in one prompt. Budgets: delivered + pending per prompt per run.
 */
import type { AcceptedSteer } from "../control/plane_types.ts";
import type { RunContext } from "./context.ts";

/** Steer queue and budget bookkeeping for one run. */
export class SteerDesk {
  /** Accepted, not yet delivered, in acceptance order. */
  readonly queue: AcceptedSteer[] = [];
  /** Delivered steers per prompt in this run. */
  readonly delivered = new Map<string, number>();
  #interrupting: Promise<void> | null = null;
  /** Whether the current live stream was interrupted for a steer. */
  interruptedLive = false;

  constructor(private readonly ctx: RunContext, private readonly maxFor: (promptId: string) => number) {}

  /** Delivered count for a prompt in this run. */
  count(promptId: string): number {
    return this.delivered.get(promptId) ?? 0;
  }

  /** Acceptance state for the plane's gate. */
  gate(): { promptRunning: boolean; sessionLive: boolean; used: number; max: number } {
    const id = this.ctx.promptId;
    return {
      promptRunning: id !== null && this.ctx.attempt !== null,
      sessionLive: this.ctx.live !== null,
      used: (id ? this.count(id) : 0) + this.queue.length,
      max: id ? this.maxFor(id) : 0,
    };
  }

  /** A steer passed acceptance: queue it and start delivery. */
  accepted(steer: AcceptedSteer): void {
    this.queue.push(steer);
    this.kick();
  }

  /** Interrupt the live stream once it is ready (no-op when an interrupt is already in flight). */
  kick(): void {
    const live = this.ctx.live;
    if (!live || this.#interrupting || this.queue.length === 0) return;
    const grace = this.ctx.packet.prompts.find((p) => p.id === live.promptId)?.options.recovery.interrupt_grace_ms ??
      5000;
    this.#interrupting = (async () => {
      await live.session.whenReady();
      if (this.ctx.live !== live || !live.session.isReady() || this.queue.length === 0) return;
      const n = this.queue.length;
      this.ctx.say(`↳ interrupting to deliver ${n} steer${n === 1 ? "" : "s"}…`, "yellow");
      this.ctx.marker(`STEER action=interrupt provider=${live.provider} count=${n}`);
      this.interruptedLive = true;
      await live.session.interrupt("interrupted_for_steer", grace);
    })().finally(() => {
      this.#interrupting = null;
    });
  }

  /** Take every queued steer for one delivery. */
  takeAll(): AcceptedSteer[] {
    return this.queue.splice(0);
  }

  /** Reset per-stream flags when a stream ends. */
  streamEnded(): void {
    this.interruptedLive = false;
  }

  /** Record a delivery. */
  markDelivered(promptId: string, n: number): number {
    const next = this.count(promptId) + n;
    this.delivered.set(promptId, next);
    return next;
  }
}
