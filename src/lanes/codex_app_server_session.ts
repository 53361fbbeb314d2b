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
import {
  aliveRecordedAsync,
  descendantsOf,
  killRecorded,
  listProcessesAsync,
  type RecordedProcess,
  trySignal,
} from "../util/mod.ts";

/** How long an app-server may take to exit after its stdin closed before it is killed. */
export const APP_SERVER_EXIT_GRACE_MS = 10_000;
/** Scans that freeze an interrupted turn's processes before they are killed (a round finding none ends it). */
const FREEZE_ROUNDS = 20;
/** How long to wait for killed leftovers to be gone. */
const LEFTOVER_KILL_WAIT_MS = 2000;

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
  #baseline = new Set<string>();

  constructor(profile: CliProfile, spec: SessionSpec, args: string[]) {
    let channel: AppServerChannel | null = null;
    this.#inner = startCliSession(profile, spec, null, {
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
        }, async () => {
          // Taken before the first turn is even requested, so no command of any turn can be in it.
          this.#baseline = new Set((await this.#descendants()).map(key));
        });
        return channel;
      },
    });
    this.#channel = channel!;
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

  /**
   * Stop every process below the app-server that was not there before its first turn. A tool may be forking while
   * this runs (a sandbox's launcher starting the shell): killing a parent first would orphan a child born a moment
   * later, reparented out of reach. So the new processes are first frozen (SIGSTOP) round after round until a scan
   * finds none not yet frozen — a frozen parent cannot fork, and a child it was already forking stays in the tree —
   * and only then killed (SIGKILL; liveness checked per recorded process, pid and start time).
   */
  async #terminateLeftovers(): Promise<void> {
    const frozen = new Map<string, RecordedProcess>();
    for (let round = 0; round < FREEZE_ROUNDS; round++) {
      const fresh = (await this.#descendants()).filter((p) => !this.#baseline.has(key(p)) && !frozen.has(key(p)));
      if (fresh.length === 0) break;
      for (const p of fresh) {
        frozen.set(key(p), p);
        trySignal(p.pid, "SIGSTOP");
      }
    }
    const left = [...frozen.values()];
    if (left.length === 0) return;
    killRecorded(left);
    const deadline = Date.now() + LEFTOVER_KILL_WAIT_MS;
    while ((await aliveRecordedAsync(left)).length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** Start one app-server stream of `profile` (the codex profile) with the `app-server` command line `args`. */
export function startAppServerSession(profile: CliProfile, spec: SessionSpec, args: string[]): LaneSession {
  return new AppServerSession(profile, spec, args);
}
