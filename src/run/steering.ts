/**
 * The runner side of steering (docs/reference/control-plane.md §8.5): once the lane is ready, the live turn is interrupted
 * (grace → SIGTERM → SIGKILL in the lane), and the attempt loop resumes the same session with every queued steer in
 * one prompt. The desk only schedules those interrupts: counts, budgets and the queue live in the plane's one
 * ledger (src/control/steer_ledger.ts), which the desk asks.
 */
import type { AcceptedSteer } from "../control/runner_api.ts";
import type { SteerLedger } from "../control/mod.ts";
import type { RunScope } from "./context.ts";

/** Interrupt scheduling for one run, reading the plane's steer ledger. */
export class SteerDesk {
  #interrupting: Promise<void> | null = null;
  /** Whether the current live stream was interrupted for a steer. */
  interruptedLive = false;

  constructor(private readonly ctx: RunScope, private readonly steers: SteerLedger) {}

  /** Delivered count for a prompt in this run (the ledger's). */
  count(promptId: string): number {
    return this.steers.count(promptId);
  }

  /** Accepted steers not yet taken for a delivery, in acceptance order (the ledger's queue). */
  get queue(): readonly AcceptedSteer[] {
    return this.steers.queued;
  }

  /** Whether a steer can reach an agent now (see {@link steerGate}). */
  gate(): SteerGate {
    return steerGate(this.ctx);
  }

  /** A steer passed acceptance (the plane queued it in the ledger): start delivery. */
  accepted(): void {
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

  /** Take every queued steer for one delivery (they keep their budget slots until delivered or rejected). */
  takeAll(): AcceptedSteer[] {
    return this.steers.take();
  }

  /** Reset per-stream flags when a stream ends. */
  streamEnded(): void {
    this.interruptedLive = false;
  }
}

/** What the plane's acceptance checks ask of the runner: is a prompt running, is a session live (budgets are the ledger's). */
export type SteerGate = { promptRunning: boolean; sessionLive: boolean; promptId: string | null };

/** The steer gate answered from the run's scope alone, so the plane hooks need no desk before the plane opens. */
export function steerGate(scope: RunScope): SteerGate {
  return {
    promptRunning: scope.promptId !== null && scope.attempt !== null,
    sessionLive: scope.live !== null,
    promptId: scope.promptId,
  };
}
