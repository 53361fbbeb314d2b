/**
 * The codex lane's `app_server` transport (docs/reference/providers.md §3.1): one `codex app-server` process per
 * stream, driven by {@link AppServerChannel} over stdin kept open, its output read by the generic CLI session. A
 * steer goes into the running turn (`turn/steer`); an interrupting steer stops the turn in the process
 * (`turn/interrupt`), terminates the commands the turn left running (codex does not), and continues the same
 * thread with the guidance (`turn/start`).
 */
import type { ProviderEvent } from "../events/mod.ts";
import { AppServerChannel } from "./codex_app_server_channel.ts";
import { startCliSession } from "./cli_session.ts";
import type { CliProfile } from "./profile.ts";
import {
  type InputAck,
  InputRefused,
  type LaneSession,
  type ProcessIdentity,
  type SessionSpec,
  type StreamEnd,
  TRANSPORT_CAPABILITIES,
} from "./types.ts";
import { descendantsOf, killRecorded, listProcessesAsync, type RecordedProcess, trySignal } from "../util/mod.ts";

/** How long an app-server may take to exit after its stdin closed before it is killed. */
export const APP_SERVER_EXIT_GRACE_MS = 10_000;
/** How long the commands an interrupted turn left running get between SIGTERM and SIGKILL. */
const LEFTOVER_TERM_GRACE_MS = 500;

const key = (p: RecordedProcess) => `${p.pid}:${p.startTicks}`;

/** A live app-server stream. */
class AppServerSession implements LaneSession {
  readonly events: AsyncIterable<ProviderEvent>;
  /** Stdin kept open: steers go into the running turn, `--interrupt` steers stop it in the process. */
  readonly transport = TRANSPORT_CAPABILITIES.app_server;
  readonly #inner: LaneSession;
  readonly #channel: AppServerChannel;
  #exitTimer: ReturnType<typeof setTimeout> | undefined;
  #ended = false;
  /** Processes below the app-server before its first turn (helpers of its own, never a turn's command). */
  #baseline: Promise<Set<string>>;

  constructor(profile: CliProfile, spec: SessionSpec, args: string[]) {
    let channel: AppServerChannel | null = null;
    this.#inner = startCliSession(profile, spec, {
      args,
      create: (io) => {
        channel = new AppServerChannel(spec, {
          write: io.write,
          closeInput: () => {
            io.closeInput();
            this.#exitTimer ??= setTimeout(() => {
              if (!this.#ended) this.#inner.kill();
            }, APP_SERVER_EXIT_GRACE_MS);
          },
        });
        return channel;
      },
    });
    this.#channel = channel!;
    this.#baseline = this.#channel.whenThread().then(() => this.#descendants()).then((ps) => new Set(ps.map(key)));
    this.events = this.#run();
  }

  async *#run(): AsyncGenerator<ProviderEvent, void, undefined> {
    try {
      yield* this.#inner.events;
    } finally {
      this.#ended = true;
      clearTimeout(this.#exitTimer);
      // Every steer still waiting for the server is refused now (the runner delivers it by resuming).
      this.#channel.abandon();
    }
  }

  get sessionId(): string | null {
    return this.#inner.sessionId;
  }

  get process(): ProcessIdentity | null {
    return this.#inner.process;
  }

  isReady(): boolean {
    return this.#inner.isReady();
  }

  whenReady(): Promise<void> {
    return this.#inner.whenReady();
  }

  interrupt(reason: "interrupted_for_steer" | "operator_stop", graceMs: number): Promise<void> {
    return this.#inner.interrupt(reason, graceMs);
  }

  kill(): void {
    this.#inner.kill();
  }

  end(): StreamEnd {
    return this.#inner.end();
  }

  /** Add `text` to the running turn; resolves on the server's `turn/steer` answer. */
  async sendInTurn(text: string): Promise<InputAck> {
    if (this.#ended) throw new InputRefused("the app-server session has ended");
    const ack = await this.#channel.steer(text);
    if (!ack.delivered) {
      throw new InputRefused(`codex app-server refused turn/steer (${ack.code}): ${ack.message}`);
    }
    return { at: new Date().toISOString() };
  }

  /**
   * Stop the running turn, terminate the commands it left running, and continue the thread with `text`; resolves
   * on the server's answer to the new `turn/start`.
   */
  async interruptInProcess(text: string): Promise<InputAck> {
    if (this.#ended) throw new InputRefused("the app-server session has ended");
    const ok = await this.#channel.interruptAndContinue(text, () => this.#terminateLeftovers());
    if (!ok) throw new InputRefused("codex app-server has no running turn to interrupt");
    return { at: new Date().toISOString() };
  }

  async #descendants(): Promise<RecordedProcess[]> {
    const me = this.#inner.process;
    if (me === null) return [];
    // Only the app-server's own tree: the tools of a command run in groups of their own, found by parent links.
    return descendantsOf(me.pid, null, await listProcessesAsync()).map((p) => ({
      pid: p.pid,
      startTicks: p.startTicks,
    }));
  }

  /** SIGTERM, then SIGKILL, every process below the app-server that was not there before its first turn. */
  async #terminateLeftovers(): Promise<void> {
    const baseline = await this.#baseline;
    const left = (await this.#descendants()).filter((p) => !baseline.has(key(p)));
    if (left.length === 0) return;
    for (const p of left) trySignal(p.pid, "SIGTERM");
    const until = Date.now() + LEFTOVER_TERM_GRACE_MS;
    while (Date.now() < until) {
      const alive = new Set((await this.#descendants()).map(key));
      if (!left.some((p) => alive.has(key(p)))) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    killRecorded(left);
  }
}

/** Start one app-server stream of `profile` (the codex profile) with the `app-server` command line `args`. */
export function startAppServerSession(profile: CliProfile, spec: SessionSpec, args: string[]): LaneSession {
  return new AppServerSession(profile, spec, args);
}
