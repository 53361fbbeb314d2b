/**
 * The runner side of steering (docs/reference/control-plane.md §8.5): once the lane is ready, queued steers are delivered
 * the way the live session's transport allows (docs/lanes.md, "Transports"):
 * - in-turn (`sendInTurn`) where the transport takes input after start and no steer asks to interrupt;
 * - in-process interrupt (`interruptInProcess`) for `--interrupt` steers where the transport has one;
 * - otherwise the live turn is interrupted (grace → SIGTERM → SIGKILL in the lane) and the attempt loop resumes the same
 *   session with every queued steer in one prompt (`interrupt_and_resume`).
 * The choice reads only the session's transport capabilities, never a provider name. Counts, budgets and the queue
 * live in the plane's one ledger (src/control/steer_ledger.ts), which the desk asks.
 */
import type { AcceptedSteer, RunnerPlane } from "../control/runner_api.ts";
import { steerInTurnPrompt, steerResumePrompt } from "../control/runner_api.ts";
import type { SteerLedger } from "../control/mod.ts";
import type { SteerDeliveryKind } from "../events/mod.ts";
import { InputRefused, type TransportCapabilities } from "../lanes/mod.ts";
import type { RunScope } from "./context.ts";

/** How queued steers reach a live session (the two resume kinds are the attempt loop's). */
export type LiveDelivery = Extract<SteerDeliveryKind, "in_turn" | "interrupt_in_process" | "interrupt_and_resume">;

/**
 * The delivery for a batch of queued steers on a session with these transport capabilities: an `--interrupt` steer in
 * the batch makes it an interrupt (in the process where the transport can), else the batch goes in-turn where the
 * transport takes input. Pure.
 */
export function liveDelivery(transport: TransportCapabilities, steers: readonly AcceptedSteer[]): LiveDelivery {
  const interrupt = steers.some((s) => s.interrupt === true);
  if (interrupt) return transport.interruptsInProcess ? "interrupt_in_process" : "interrupt_and_resume";
  return transport.acceptsInputAfterStart ? "in_turn" : "interrupt_and_resume";
}

/** Delivery scheduling for one run, reading the plane's steer ledger. */
export class SteerDesk {
  #delivering: Promise<void> | null = null;
  /** Whether the current live stream was interrupted for a steer. */
  interruptedLive = false;

  constructor(
    private readonly ctx: RunScope,
    private readonly steers: SteerLedger,
    private readonly plane: Pick<RunnerPlane, "steersDelivered">,
  ) {}

  /** Delivered count for a prompt in this run (the ledger's). */
  count(promptId: string): number {
    return this.steers.count(promptId);
  }

  /** Delivered steers of a prompt in this run by delivery kind (the ledger's). */
  deliveries(promptId: string): Record<string, number> {
    return this.steers.deliveries(promptId);
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

  /** Deliver the queue to the live stream once it is ready (no-op while a delivery is in flight). */
  kick(): void {
    const live = this.ctx.live;
    if (!live || this.#delivering || this.queue.length === 0) return;
    let again = false;
    this.#delivering = (async () => {
      await live.session.whenReady();
      if (this.ctx.live !== live || !live.session.isReady() || this.queue.length === 0) return;
      const how = liveDelivery(live.session.transport, this.queue);
      if (how === "interrupt_and_resume") {
        const grace = this.ctx.packet.prompts.find((p) =>
          p.id === live.promptId
        )?.options.recovery.interrupt_grace_ms ?? 5000;
        const n = this.queue.length;
        this.ctx.say(`↳ interrupting to deliver ${n} steer${n === 1 ? "" : "s"}…`, "yellow");
        this.ctx.marker(`STEER action=interrupt provider=${live.provider} count=${n}`);
        this.interruptedLive = true;
        await live.session.interrupt("interrupted_for_steer", grace);
        return;
      }
      const steers = this.steers.take();
      const texts = steers.map((s) => s.text);
      const n = steers.length;
      const word = `steer${n === 1 ? "" : "s"}`;
      try {
        if (how === "in_turn") {
          this.ctx.say(`↳ delivering ${n} ${word} into the running turn…`, "yellow");
          await live.session.sendInTurn!(steerInTurnPrompt(texts));
        } else {
          this.ctx.say(`↳ stopping the turn to deliver ${n} ${word}…`, "yellow");
          await live.session.interruptInProcess!(steerResumePrompt(texts));
        }
      } catch (e) {
        if (!(e instanceof InputRefused)) throw e;
        // Not lost: the stream ends, and the attempt loop resumes the session with them.
        this.ctx.marker(`STEER action=refused_in_session provider=${live.provider} count=${n}`);
        this.steers.requeue(steers);
        return;
      }
      this.plane.steersDelivered(steers, {
        delivery: how,
        prompt_id: live.promptId,
        attempt: live.attempt,
        lane: live.provider,
        session_id: live.session.sessionId,
        interrupted: how === "interrupt_in_process",
      });
      const count = this.count(live.promptId);
      this.ctx.marker(`STEER action=${how} provider=${live.provider} count=${count}`);
      again = true;
    })().catch((e) => {
      this.ctx.say(`↳ steer delivery failed: ${e instanceof Error ? e.message : String(e)}`, "red");
    }).finally(() => {
      this.#delivering = null;
      // Steers accepted while an in-session delivery was in flight go next (same stream, if it is still live).
      if (again && this.ctx.live === live && this.queue.length > 0) this.kick();
    });
  }

  /**
   * Wait for the delivery in flight to settle. A session answers (acknowledges or refuses) every input by the time
   * its event stream is exhausted, so after the pump this returns promptly; a refused batch is back in the queue.
   */
  async settle(): Promise<void> {
    while (this.#delivering) await this.#delivering;
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
