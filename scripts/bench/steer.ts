/**
 * Steer latency with the real `codex` CLI (and `claude` when installed) against a standalone fake model server: the
 * time from `prompt_runner control steer` to the first provider event of the resumed stream, minus the provider
 * CLI's own start-up time (spawn of `exec resume` / `--resume` to its first stdout line) measured in the same run.
 * Target: overhead ≤ 100 ms. Reports `skipped` when the binaries are not installed (scripts/install_e2e_tools.ts).
 */
import { runCli, spawnCli } from "../../tests/support/cli.ts";
import { GIT_ENV, initRepo } from "../../tests/support/fs.ts";
import { claudeEnv, codexEnv, e2eBinary, removeScratch } from "../../tests/support/e2e_env.ts";
import { driveCli } from "../../tests/support/fake_server_driver.ts";
import { loadPacket } from "../../src/packet/load.ts";
import { steerResumePrompt } from "../../src/control/steer.ts";
import { claudeProfile } from "../../src/lanes/claude.ts";
import { codexProfile } from "../../src/lanes/codex.ts";
import type { SessionSpec } from "../../src/lanes/types.ts";

type Lane = "claude" | "codex";
const ROUNDS = 3;
const STEER_TEXT = "Change course. [[e2e:text Steered.]]";
const SUPPORT = new URL("../../tests/support/", import.meta.url).pathname;

interface Standalone {
  port: number;
  stop(): Promise<void>;
}

/** The fake runs as its own process so this bench needs no net permission. */
async function startFake(lane: Lane, dir: string): Promise<Standalone> {
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
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function readEvents(store: string): Record<string, unknown>[] {
  try {
    return Deno.readTextFileSync(`${store}/control/events.jsonl`).split("\n").filter((l) => l.trim()).map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return {};
      }
    });
  } catch {
    return [];
  }
}

async function until<T>(what: string, f: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 10));
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
    try {
      const started = await until("run_started", () => readEvents(store).find((e) => e.type === "run_started"));
      // Let the readiness rule (turn.started / init + 100 ms) pass so the steer measures delivery, not waiting.
      await new Promise((r) => setTimeout(r, 600));
      const launched = Date.now();
      const steer = await runCli(["control", "steer", packet, "--", STEER_TEXT], {
        cwd: root,
        env,
      });
      const requested = Date.now();
      if (steer.code !== 0) throw new Error(`control steer failed: ${steer.stderr}`);
      const first = await until(
        "the resumed stream's first event",
        () =>
          readEvents(store).find((e) =>
            e.stream === "steer" && e.origin === "provider" && e.type !== "message_sent" && !e.hidden
          ),
      );
      const at = Date.parse(String(first.at));
      const all = readEvents(store);
      const atOf = (type: string) => Date.parse(String(all.find((e) => e.type === type)?.at));
      const accepted = atOf("steer_accepted");
      const cancelled = atOf("run_cancelled");
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
      // An odd count, so the median is a sample rather than the larger of two.
      const startups: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await driveCli(e2eBinary(lane)!, args, { cwd: prompt.cwd, env: childEnv });
        if (r.lines[0]) startups.push(r.lines[0].t);
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

/** Entry point for scripts/bench.ts. */
export async function bench(): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = {};
  for (const lane of ["codex", "claude"] as const) {
    if (!e2eBinary(lane)) {
      out[`${lane}_steer`] = "skipped (binary not installed)";
      continue;
    }
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await steerOnce(lane));
    const launch = median(rounds.map((r) => r.fromLaunch));
    const request = median(rounds.map((r) => r.fromRequest));
    const startup = median(rounds.map((r) => r.startup));
    out[`${lane}_steer_to_resumed_event_ms`] = Math.round(launch);
    out[`${lane}_request_written_to_resumed_event_ms`] = Math.round(request);
    out[`${lane}_cli_startup_ms`] = Math.round(startup);
    out[`${lane}_steer_overhead_ms (target <= 100)`] = Math.round(launch - startup);
    out[`${lane}_runner_overhead_after_request_ms`] = Math.round(request - startup);
    out[`${lane}_pickup_ms (request -> steer_accepted)`] = Math.round(median(rounds.map((r) => r.pickup)));
    out[`${lane}_interrupt_ms (accepted -> run_cancelled)`] = Math.round(median(rounds.map((r) => r.interrupt)));
    out[`${lane}_respawn_ms (cancelled -> resumed event)`] = Math.round(median(rounds.map((r) => r.respawn)));
  }
  return out;
}

if (import.meta.main) console.log(await bench());
