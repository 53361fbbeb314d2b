/**
 * Steer → the model request containing it, with the real `claude` and `codex` CLIs against a standalone fake model
 * server, per lane, transport and kind of steer (docs/lanes.md, "Transports"), the same run of this case: claude
 * `exec` (SIGINT + `--resume`, `interrupt_and_resume`), `stream_json` default (`in_turn`) and `stream_json --interrupt`
 * (`interrupt_in_process`); codex `exec` (SIGINT + `exec resume`), `app_server` default (`turn/steer`) and
 * `app_server --interrupt` (`turn/interrupt` + `turn/start`).
 * Each round runs `prompt_runner run` on a one-prompt packet whose turn runs `sleep` (Bash); once the sleep process
 * exists the steer is sent with `control steer`. On this process's clock: when the request file landed in
 * `control/requests/`, when the sleep process ended (a 2 ms `/proc` poll), and when the fake's request log first
 * holds a request carrying the steer's marker. An in-turn steer waits for the tool by design, so its figure is also
 * given from the tool's end. Checked per round: the run exits 0, the guided request exists, the control log records
 * the expected delivery. A lane's rows are skipped when its CLI is not installed (the case, when neither is).
 */
import { runCli, spawnCli } from "../../tests/support/cli.ts";
import { GIT_ENV, initRepo } from "../../tests/support/fs.ts";
import { claudeEnv, codexEnv, e2eBinary, removeScratch } from "../../tests/support/e2e_env.ts";
import { BenchSkip, check, median } from "./_harness.ts";
import { AppendedLines } from "./_lines.ts";
import { startFake, StoreObserver } from "./_steer.ts";
import { descendantsOf, listProcesses, readProcCmdline, readProcStat } from "../../src/util/proc_tree.ts";

const ROUNDS = 5;
/**
 * Seconds the tool of an in-turn round runs: long enough for `control steer` to land inside it on a loaded machine
 * (a steer arriving after the turn ended is delivered by resuming, which is not what the round measures), short
 * enough to wait for. Interrupting rounds end the tool themselves: their tool would run {@link STOPPED_TOOL_SECONDS}.
 */
const TOOL_SECONDS = 20;
const STOPPED_TOOL_SECONDS = 120;

type LaneName = "claude" | "codex";

export interface Kind {
  lane: LaneName;
  name: string;
  /** The manifest keys selecting the transport (none: `exec`). */
  select: Record<string, unknown>;
  interrupt: boolean;
  delivery: string;
}

export const KINDS: Kind[] = [
  { lane: "claude", name: "exec_sigint_resume", select: {}, interrupt: false, delivery: "interrupt_and_resume" },
  {
    lane: "claude",
    name: "stream_json_in_turn",
    select: { claude_opts: { transport: "stream_json" } },
    interrupt: false,
    delivery: "in_turn",
  },
  {
    lane: "claude",
    name: "stream_json_interrupt",
    select: { claude_opts: { transport: "stream_json" } },
    interrupt: true,
    delivery: "interrupt_in_process",
  },
  { lane: "codex", name: "exec_sigint_resume", select: {}, interrupt: false, delivery: "interrupt_and_resume" },
  {
    lane: "codex",
    name: "app_server_in_turn",
    select: { codex_opts: { app_server: true } },
    interrupt: false,
    delivery: "in_turn",
  },
  {
    lane: "codex",
    name: "app_server_interrupt",
    select: { codex_opts: { app_server: true } },
    interrupt: true,
    delivery: "interrupt_in_process",
  },
];

/** What differs between the lanes' packets and environments. */
const LANE_SETUP: Record<LaneName, { model: string; cliEnv: string; manifest: Record<string, unknown> }> = {
  claude: {
    model: "claude-sonnet-4-5",
    cliEnv: "PROMPT_RUNNER_CLAUDE_CLI",
    manifest: { allowed_tools: ["Bash", "Read", "Edit", "Write"] },
  },
  codex: { model: "gpt-5.5", cliEnv: "PROMPT_RUNNER_CODEX_CLI", manifest: {} },
};

export interface Round {
  /** Request landed → guided model request. */
  fromRequest: number;
  /** The tool's end → guided model request (negative: the request came before the tool ended). */
  fromToolEnd: number | null;
}

/**
 * The pid of the runner's descendant whose command line carries `needle` (through the driver's /proc readers: no
 * -A needed).
 */
function pidOf(runner: number, needle: string): number | null {
  for (const p of descendantsOf(runner, null, listProcesses())) {
    if ((readProcCmdline(p.pid) ?? "").startsWith(needle)) return p.pid;
  }
  return null;
}

function alive(pid: number): boolean {
  const st = readProcStat(pid);
  return st !== null && st.state !== "Z";
}

async function until<T>(what: string, f: () => T | undefined, timeoutMs = 60_000, stepMs = 2): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function steerOnce(kind: Kind): Promise<Round> {
  try {
    return await steerRound(kind);
  } catch (e) {
    throw new Error(`${kind.lane} ${kind.name}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function steerRound(kind: Kind): Promise<Round> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "pr-bench-steer-transport-" }));
  const fake = await startFake(kind.lane, root);
  try {
    const repo = `${root}/repo`;
    const packet = `${root}/packet`;
    await initRepo(repo);
    const setup = LANE_SETUP[kind.lane];
    const cli = kind.lane === "claude" ? await claudeEnv(root, fake.port) : await codexEnv(root, fake.port);
    const manifest = {
      provider: kind.lane,
      model: setup.model,
      permission_mode: "auto",
      ...setup.manifest,
      repos: { app: { path: repo, default: true } },
      ...kind.select,
    };
    const seconds = kind.delivery === "in_turn" ? TOOL_SECONDS : STOPPED_TOOL_SECONDS;
    const sleepArg = `${seconds}.${Math.floor(Math.random() * 1e6)}`;
    const mark = `STEER-${crypto.randomUUID().slice(0, 8)}`;
    await Deno.mkdir(`${packet}/prompts`, { recursive: true });
    await Deno.writeTextFile(`${packet}/prompt_runner_packet.md`, `---\n${JSON.stringify(manifest)}\n---\n`);
    await Deno.writeTextFile(
      `${packet}/prompts/01_task.prompt.md`,
      `# Task\n\nRun it. [[e2e:bash sleep ${sleepArg}]]\n`,
    );
    const env = {
      ...cli.env,
      ...GIT_ENV,
      [setup.cliEnv]: e2eBinary(kind.lane)!,
      PROMPT_RUNNER_CONFIG_HOME: `${root}/config`,
      USER: "bench",
    };
    const store = `${packet}/.prompt_runner`;
    const run = spawnCli(["run", packet], { cwd: root, env });
    const drain = Promise.all([run.stdout.pipeTo(new WritableStream()), run.stderr.pipeTo(new WritableStream())]);
    let obs: StoreObserver | null = null;
    try {
      await until(
        "the run's control directory",
        () => {
          try {
            return Deno.statSync(`${store}/control/requests`).isDirectory ? true : undefined;
          } catch {
            return undefined;
          }
        },
        60_000,
        20,
      );
      const o = obs = new StoreObserver(store);
      const pid = await until(
        "the tool's sleep process",
        () => pidOf(run.pid, `sleep ${sleepArg}`) ?? undefined,
        60_000,
        5,
      );
      const requests = new AppendedLines(`${root}/requests.jsonl`);
      requests.read(); // what came before the steer
      const args = ["control", "steer", packet, ...(kind.interrupt ? ["--interrupt"] : []), "--", `${mark}: go on.`];
      const sent = runCli(args, { cwd: root, env });
      let toolEnd: number | null = null;
      const guided = await until("the model request carrying the steer", () => {
        if (toolEnd === null && !alive(pid)) toolEnd = performance.now();
        const { at, lines } = requests.read();
        return lines.some((l) => l.includes(mark)) ? at : undefined;
      }, 180_000); // a CLI start-up on a loaded machine can take tens of seconds
      const steer = await sent;
      check(steer.code === 0, `control steer exited ${steer.code}: ${steer.stderr}`);
      const status = await run.status;
      await drain;
      check(status.code === 0, `the steered run exited ${status.code}`);
      const log = (await Deno.readTextFile(`${store}/control/log.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
      const applied = log.find((e) => e.command === "steer" && e.outcome === "applied");
      check(applied?.params?.delivery === kind.delivery, `expected ${kind.delivery}, got ${applied?.params?.delivery}`);
      const requested = o.requestAt;
      check(requested !== null && requested <= guided, "the request landed after the guided model request");
      check(toolEnd === null || requested < toolEnd, "the steer landed after the tool ended (machine too loaded)");
      return { fromRequest: guided - requested, fromToolEnd: toolEnd === null ? null : guided - toolEnd };
    } finally {
      obs?.close();
      try {
        run.kill("SIGKILL");
      } catch { /* exited */ }
    }
  } finally {
    await fake.stop();
    await removeScratch(root);
  }
}

/** Run the case: per installed lane, rounds of its three kinds alternated, medians per kind. */
export async function bench(): Promise<Record<string, number | string>> {
  const lanes = (["claude", "codex"] as const).filter((l) => e2eBinary(l) !== null);
  if (lanes.length === 0) throw new BenchSkip("neither claude nor codex is installed (scripts/install_e2e_tools.ts)");
  const kinds = KINDS.filter((k) => lanes.includes(k.lane));
  const id = (k: Kind) => `${k.lane}_${k.name}`;
  const rounds = new Map<string, Round[]>(kinds.map((k) => [id(k), []]));
  for (let i = 0; i < ROUNDS; i++) {
    for (const k of kinds) rounds.get(id(k))!.push(await steerOnce(k));
  }
  const out: Record<string, number | string> = { rounds: ROUNDS, tool_seconds: TOOL_SECONDS };
  const med = (name: string) => median(rounds.get(name)!.map((r) => r.fromRequest));
  for (const k of kinds) out[`${id(k)}_request_to_guided_model_request_ms`] = Math.round(med(id(k)));
  for (const lane of lanes) {
    const inTurnKind = kinds.find((k) => k.lane === lane && k.delivery === "in_turn")!;
    const interruptKind = kinds.find((k) => k.lane === lane && k.delivery === "interrupt_in_process")!;
    const inTurn = rounds.get(id(inTurnKind))!.map((r) => r.fromToolEnd);
    check(inTurn.every((x) => x !== null), `a ${lane} in-turn round never saw its tool end`);
    out[`${id(inTurnKind)}_tool_end_to_guided_model_request_ms`] = Math.round(median(inTurn as number[]));
    out[`${lane}_exec_over_${interruptKind.name}_ratio`] = Number(
      (med(`${lane}_exec_sigint_resume`) / med(id(interruptKind))).toFixed(1),
    );
  }
  if (lanes.length < 2) {
    out["skipped_lanes"] = ["claude", "codex"].filter((l) => !lanes.includes(l as LaneName)).join(",");
  }
  return out;
}
