/**
 * Steer latency with the real `codex` or `claude` CLI against a standalone fake model server: the
 * time from `prompt_runner control steer` to the first provider event of the resumed stream, minus the provider
 * CLI's own start-up time (spawn of `exec resume` / `--resume` to its first stdout line) measured in the same run.
 * Target: overhead ≤ 100 ms. Every instant is taken on this process's clock: a {@link StoreObserver} notes when it
 * first sees the request file land in `control/requests/` (any watch event naming it) and each event line in
 * `events.jsonl` (2 ms poll), so the phases (pickup, interrupt, respawn) never mix two processes' clocks and cannot
 * come out negative.
 * The case is skipped (never recorded as a figure) when the lane's binary is not installed (scripts/install_e2e_tools.ts).
 */
import { runCli, spawnCli } from "../../tests/support/cli.ts";
import { GIT_ENV, initRepo } from "../../tests/support/fs.ts";
import { claudeEnv, codexEnv, e2eBinary, removeScratch } from "../../tests/support/e2e_env.ts";
import { driveCli } from "../../tests/support/fake_server_driver.ts";
import { loadPacket } from "../../src/packet/load.ts";
import { steerResumePrompt } from "../../src/control/steer.ts";
import { isRequestName } from "../../src/control/request.ts";
import type { WatchFactory } from "../../src/control/waker.ts";
import { claudeProfile } from "../../src/lanes/claude.ts";
import { codexProfile } from "../../src/lanes/codex.ts";
import type { SessionSpec } from "../../src/lanes/types.ts";
import { BenchSkip, check, median as medianOf } from "./_harness.ts";
import { AppendedLines } from "./_lines.ts";

/** A lane with a steer benchmark. */
export type Lane = "claude" | "codex";
const ROUNDS = 5;
const STEER_TEXT = "Change course. [[e2e:text Steered.]]";
const SUPPORT = new URL("../../tests/support/", import.meta.url).pathname;

/** A fake model server running as its own process. */
export interface Standalone {
  port: number;
  stop(): Promise<void>;
}

/** The fake runs as its own process so this bench needs no net permission (also used by steer_transports.ts). */
export async function startFake(lane: Lane, dir: string): Promise<Standalone> {
  const file = lane === "claude" ? "fake_anthropic.ts" : "fake_openai.ts";
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-net=127.0.0.1",
      `--allow-write=${dir}`,
      `${SUPPORT}${file}`,
      "--log",
      `${dir}/requests.jsonl`,
      "--slow-tick",
      "100",
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  while (!buf.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("fake server exited before printing its port");
    buf += value;
  }
  const { port } = JSON.parse(buf.slice(0, buf.indexOf("\n"))) as { port: number };
  return {
    port,
    async stop() {
      child.kill("SIGTERM");
      await reader.cancel().catch(() => {});
      await child.status;
    },
  };
}

function median(xs: number[]): number {
  return medianOf(xs);
}

/** Whether a watch event names a request file (not a temp file) in `control/requests/`. */
export function isRequestPath(path: string): boolean {
  return isRequestName(path.slice(path.lastIndexOf("/") + 1));
}

/** Watches a store from this process: when the first request landed, and when each event line first appeared. */
export class StoreObserver {
  readonly #events: AppendedLines;
  readonly #watcher: { close(): void } | null;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #requests: string;
  /** Every event line seen so far, with the instant (this process's clock) it was first read. */
  readonly seen: { at: number; e: Record<string, unknown> }[] = [];
  /** When a request file first appeared in `control/requests/` (null until then). */
  requestAt: number | null = null;

  /** `watchFs`: the watcher of `control/requests/` (default `Deno.watchFs`, non-recursive; a fake in tests). */
  constructor(store: string, watchFs: WatchFactory = (dir) => Deno.watchFs(dir, { recursive: false })) {
    this.#events = new AppendedLines(`${store}/control/events.jsonl`);
    const requests = this.#requests = `${store}/control/requests`;
    const watcher = watchFs(requests);
    this.#watcher = watcher;
    void (async () => {
      try {
        for await (const ev of watcher) {
          // Any kind counts: a request the runner claims at once can be reported only as removals (the watcher
          // thread reads both renames in one batch and names the first by what it finds: nothing left there).
          if (this.requestAt === null && ev.paths.some(isRequestPath)) this.requestAt = performance.now();
        }
      } catch { /* closed */ }
    })();
    this.#timer = setInterval(() => this.poll(), 2);
  }

  /** Read the lines appended since the last poll. */
  poll(): void {
    // A request still listed at a tick marks the instant as well: the watcher's report can reach this process after
    // the tick that reads the runner's answer to it.
    if (this.requestAt === null && this.#requestListed()) this.requestAt = performance.now();
    const { at, lines } = this.#events.read();
    for (const l of lines) {
      try {
        this.seen.push({ at, e: JSON.parse(l) });
      } catch { /* a torn line is read whole next time */ }
    }
  }

  #requestListed(): boolean {
    try {
      for (const e of Deno.readDirSync(this.#requests)) if (isRequestName(e.name)) return true;
    } catch { /* not created yet */ }
    return false;
  }

  /** The first seen event matching `f`, with when it was seen. */
  find(f: (e: Record<string, unknown>) => boolean): { at: number; e: Record<string, unknown> } | undefined {
    return this.seen.find((s) => f(s.e));
  }

  close(): void {
    clearInterval(this.#timer);
    try {
      this.#watcher?.close();
    } catch { /* closed */ }
  }
}

async function until<T>(what: string, f: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** One steered run: returns ms from launching `control steer` (and from its exit) to the resumed first event. */
interface Round {
  fromLaunch: number;
  fromRequest: number;
  startup: number;
  /** Request written → steer_accepted. */
  pickup: number;
  /** steer_accepted → run_cancelled of the interrupted stream. */
  interrupt: number;
  /** run_cancelled → first event of the resumed stream. */
  respawn: number;
}

/** A round whose request this process saw only after the runner's answer to it (see {@link StoreObserver.poll}). */
class RequestSeenLate extends Error {}

async function steerOnce(lane: Lane): Promise<Round> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: `pr-bench-steer-${lane}-` }));
  const fake = await startFake(lane, root);
  try {
    const repo = `${root}/repo`;
    const packet = `${root}/packet`;
    await initRepo(repo);
    const cli = lane === "claude" ? await claudeEnv(root, fake.port) : await codexEnv(root, fake.port);
    const manifest = {
      provider: lane,
      model: lane === "claude" ? "claude-sonnet-4-5" : "gpt-5.5",
      permission_mode: "auto",
      repos: { app: { path: repo, default: true } },
    };
    await Deno.mkdir(`${packet}/prompts`, { recursive: true });
    await Deno.writeTextFile(`${packet}/prompt_runner_packet.md`, `---\n${JSON.stringify(manifest)}\n---\n`);
    await Deno.writeTextFile(`${packet}/prompts/01_task.prompt.md`, "# Task\n\nStream. [[e2e:slow 30]]\n");
    const env = {
      ...cli.env,
      ...GIT_ENV,
      [lane === "claude" ? "PROMPT_RUNNER_CLAUDE_CLI" : "PROMPT_RUNNER_CODEX_CLI"]: e2eBinary(lane)!,
      PROMPT_RUNNER_CONFIG_HOME: `${root}/config`,
      USER: "bench",
    };
    const store = `${packet}/.prompt_runner`;
    const run = spawnCli(["run", packet], { cwd: root, env });
    const drain = Promise.all([run.stdout.pipeTo(new WritableStream()), run.stderr.pipeTo(new WritableStream())]);
    let obs: StoreObserver | null = null;
    try {
      await until("the run's control directory", () => {
        try {
          return Deno.statSync(`${store}/control/requests`).isDirectory ? true : undefined;
        } catch {
          return undefined;
        }
      });
      const o = obs = new StoreObserver(store);
      const started = (await until("run_started", () => o.find((e) => e.type === "run_started"))).e;
      // Let the readiness rule (turn.started / init + 100 ms) pass so the steer measures delivery, not waiting.
      await new Promise((r) => setTimeout(r, 600));
      check(o.requestAt === null, "a request landed before the steer was sent");
      const launched = performance.now();
      const steer = await runCli(["control", "steer", packet, "--", STEER_TEXT], {
        cwd: root,
        env,
      });
      check(steer.code === 0, `control steer exited ${steer.code}: ${steer.stderr}`);
      const first = await until(
        "the resumed stream's first event",
        () => o.find((e) => e.stream === "steer" && e.origin === "provider" && e.type !== "message_sent" && !e.hidden),
      );
      const at = first.at;
      const requested = o.requestAt;
      check(requested !== null, "the steer request was never seen in control/requests/");
      const atOf = (type: string) => {
        const got = o.find((e) => e.type === type);
        check(got !== undefined, `no ${type} event in the steered run`);
        return got.at;
      };
      const since = (t: number) => (t - launched).toFixed(1);
      const accepted = atOf("steer_accepted");
      const cancelled = atOf("run_cancelled");
      // Claimed within a tick and reported by the watcher after the answer was read: this round has no pickup time.
      if (requested > accepted) throw new RequestSeenLate(`request ${since(requested)}, accepted ${since(accepted)}`);
      check(
        launched <= requested && requested <= accepted && accepted <= cancelled && cancelled <= at,
        `the steer's instants are out of order on this process's clock (ms after the launch: request ${
          since(requested)
        }, accepted ${since(accepted)}, cancelled ${since(cancelled)}, resumed ${since(at)})`,
      );
      const sessionId = String(started.session_id ?? "");
      await run.status;
      await drain;
      // The provider CLI's own start-up: resume the same session directly, spawn → first stdout line, with what the
      // runner's resume spawns: the lane's own resume argv (model, permission and config flags, the steer prompt),
      // the prompt's cwd, and the runner's environment (inherited, plus the CLI env and the PROMPT_RUNNER_* vars).
      const prompt = (await loadPacket(packet)).prompts[0]!;
      const spec = {
        runId: String(started.run_id ?? ""),
        promptId: prompt.id,
        attempt: 1,
        streamKind: "steer",
        prompt: steerResumePrompt([STEER_TEXT]),
        cwd: prompt.cwd,
        options: prompt.options,
        resumeSessionId: sessionId,
        extraDirs: [],
        repos: {},
        env: {},
        simulate: null,
        simulatedStep: "steer",
      } satisfies SessionSpec;
      const args = (lane === "claude" ? claudeProfile : codexProfile).buildResume(sessionId, spec);
      const childEnv = {
        ...Deno.env.toObject(),
        NO_COLOR: "1",
        ...env,
        PROMPT_RUNNER_RUN_ID: spec.runId,
        PROMPT_RUNNER_PROMPT_ID: prompt.id,
        PROMPT_RUNNER_PACKET_DIR: packet,
      };
      // An odd count of at least 5, so the median is a sample rather than the larger of two.
      const startups: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await driveCli(e2eBinary(lane)!, args, { cwd: prompt.cwd, env: childEnv });
        check(r.lines[0] !== undefined, `${lane} resume printed nothing`);
        startups.push(r.lines[0].t);
      }
      return {
        fromLaunch: at - launched,
        fromRequest: at - requested,
        startup: median(startups),
        pickup: accepted - requested,
        interrupt: cancelled - accepted,
        respawn: at - cancelled,
      };
    } finally {
      obs?.close();
      try {
        run.kill("SIGKILL");
      } catch {
        // Already exited.
      }
    }
  } finally {
    await fake.stop();
    await removeScratch(root);
  }
}

/** The steer case of one lane (areas steer_codex and steer_claude); skipped when its binary is not installed. */
export async function benchLane(lane: Lane): Promise<Record<string, number | string>> {
  if (e2eBinary(lane) === null) throw new BenchSkip(`${lane} is not installed (scripts/install_e2e_tools.ts)`);
  const out: Record<string, number | string> = {};
  const rounds: Round[] = [];
  let retried = 0;
  while (rounds.length < ROUNDS) {
    try {
      rounds.push(await steerOnce(lane));
    } catch (e) {
      // A round without a pickup time is run again, at most ROUNDS times in all; the count is in the figures.
      if (!(e instanceof RequestSeenLate) || retried === ROUNDS) throw e;
      retried++;
    }
  }
  const launch = median(rounds.map((r) => r.fromLaunch));
  const request = median(rounds.map((r) => r.fromRequest));
  const startup = median(rounds.map((r) => r.startup));
  out[`${lane}_rounds`] = ROUNDS;
  out[`${lane}_rounds_run_again`] = retried;
  out[`${lane}_steer_to_resumed_event_ms`] = Math.round(launch);
  out[`${lane}_request_written_to_resumed_event_ms`] = Math.round(request);
  out[`${lane}_cli_startup_ms`] = Math.round(startup);
  out[`${lane}_steer_overhead_ms (target <= 100)`] = Math.round(launch - startup);
  out[`${lane}_runner_overhead_after_request_ms`] = Math.round(request - startup);
  out[`${lane}_pickup_ms (request -> steer_accepted)`] = Math.round(median(rounds.map((r) => r.pickup)));
  out[`${lane}_interrupt_ms (accepted -> run_cancelled)`] = Math.round(median(rounds.map((r) => r.interrupt)));
  out[`${lane}_respawn_ms (cancelled -> resumed event)`] = Math.round(median(rounds.map((r) => r.respawn)));
  return out;
}
