/**
 * Scenario harness of the end-to-end suite: a scratch root with a git repo, a one-prompt packet for the `claude` or
 * `codex` lane, the matching fake model server with its request log, and the environment that points our CLI at the
 * installed binary and the fake (docs/reference/providers.md §7). Helpers read the store root the way an outside observer would.
 */
import { type CliResult, runCli, spawnCli } from "../support/cli.ts";
import { git, GIT_ENV, initRepo } from "../support/fs.ts";
import { anthropicAnchor, anthropicCwd, anthropicMessageText, startFakeAnthropic } from "../support/fake_anthropic.ts";
import { type InputItem, openaiAnchor, openaiCwd, openaiItemText, startFakeOpenAI } from "../support/fake_openai.ts";
import type { FakeServer, LoggedRequest } from "../support/fake_server_common.ts";
import { claudeEnv, codexEnv, E2E_TAG_VAR, e2eBinary, filesNamedLike, removeScratch } from "../support/e2e_env.ts";
import { readProcStat } from "../support/fake_server_driver.ts";
import { waitFor } from "../support/wait.ts";

/** A lane under test. */
export type LaneName = "claude" | "codex";

/** Per-lane facts the tests need. */
export const LANES: Record<LaneName, {
  model: string;
  cliEnv: string;
  /** Model requests one failed attempt makes for a retried HTTP error (claude retries once internally). */
  requestsPerFailedAttempt: number;
  thinkingText: string;
  /** Class of a plain HTTP 500 (lane hints, docs/reference/providers.md). */
  class500: string;
  extraManifest: Record<string, unknown>;
}> = {
  claude: {
    model: "claude-sonnet-4-5",
    cliEnv: "PROMPT_RUNNER_CLAUDE_CLI",
    requestsPerFailedAttempt: 2,
    thinkingText: "Let me think about this request step by step.",
    // The same fault has the same class on every lane (tests/lanes/classification_table_test.ts).
    class500: "provider_capacity",
    extraManifest: { allowed_tools: ["Bash", "Read", "Edit", "Write"] },
  },
  codex: {
    model: "gpt-5.5",
    cliEnv: "PROMPT_RUNNER_CODEX_CLI",
    requestsPerFailedAttempt: 1,
    thinkingText: "Let me think this through.",
    class500: "provider_capacity",
    extraManifest: {},
  },
};

/** Options of a scenario. */
export interface ScenarioOptions {
  /** Prompt body after the H1 (directives included). */
  body: string;
  verify?: Record<string, unknown>;
  /** Files committed in the repo's initial commit. */
  files?: Record<string, string>;
  /** Extra manifest keys. */
  manifest?: Record<string, unknown>;
  /** Milliseconds between deltas of a slow turn (default 250). */
  slowTickMs?: number;
  /** Manifest keys the scenario would set that a case leaves to a profile (e.g. `model`). */
  omitManifest?: string[];
}

/** One prepared scenario; dispose to stop the fake and remove the scratch root. */
export interface Scenario extends AsyncDisposable {
  lane: LaneName;
  root: string;
  repo: string;
  packet: string;
  store: string;
  server: FakeServer;
  /** Environment for every `prompt_runner` invocation. */
  env: Record<string, string>;
  /** `CLAUDE_CONFIG_DIR` or `CODEX_HOME`. */
  configDir: string;
}

/**
 * Whether this process should run the end-to-end suite: under "deno task e2e" (which tags the suite) or with
 * `PROMPT_RUNNER_E2E=1`. `deno task test` also collects tests/e2e/ but has neither the permissions (/proc needs
 * --allow-all) nor the time budget for it, so there the cases are registered ignored with a notice.
 */
export function e2eRequested(): boolean {
  return Deno.env.get(E2E_TAG_VAR) !== undefined || Deno.env.get("PROMPT_RUNNER_E2E") === "1";
}

/** Why the e2e cases of a lane cannot run here, or null when they can (the caller prints it: never silent). */
export function e2eSkipReason(lane: LaneName): string | null {
  if (!e2eRequested()) return `${lane} e2e tests run through \`deno task e2e\` (or set PROMPT_RUNNER_E2E=1)`;
  if (e2eBinary(lane) === null) return `${lane} binary not installed (run scripts/install_e2e_tools.ts)`;
  return null;
}

/** A unique marker to find in request logs and process lists. */
export function marker(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Build the scratch root, repo, packet, fake server and environment. */
export async function scenario(lane: LaneName, opts: ScenarioOptions): Promise<Scenario> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: `pr-e2e-${lane}-` }));
  const repo = `${root}/repo`;
  const packet = `${root}/packet`;
  await initRepo(repo, { "README.md": "# e2e scratch\n", ...opts.files });
  const tick = opts.slowTickMs ?? 250;
  const server = lane === "claude"
    ? await startFakeAnthropic({ logPath: `${root}/requests.jsonl`, slowTickMs: tick })
    : await startFakeOpenAI({ logPath: `${root}/requests.jsonl`, slowTickMs: tick });
  const cli = lane === "claude" ? await claudeEnv(root, server.port) : await codexEnv(root, server.port);
  const manifest = {
    name: `e2e-${lane}`,
    provider: lane,
    model: LANES[lane].model,
    permission_mode: "auto",
    repos: { app: { path: repo, default: true } },
    recovery: {
      retry: { base_delay_ms: 0, max_delay_ms: 0, jitter: false },
      interrupt_grace_ms: 5000,
    },
    ...LANES[lane].extraManifest,
    ...opts.manifest,
  } as Record<string, unknown>;
  for (const key of opts.omitManifest ?? []) delete manifest[key];
  await Deno.mkdir(`${packet}/prompts`, { recursive: true });
  await Deno.writeTextFile(`${packet}/prompt_runner_packet.md`, `---\n${JSON.stringify(manifest, null, 2)}\n---\n`);
  // No `verify:` key when a case checks nothing on disk: an empty `verify: {}` is refused by run (docs/lint.md).
  const front = { id: "01", name: "E2E task", ...(opts.verify ? { verify: opts.verify } : {}) };
  await Deno.writeTextFile(
    `${packet}/prompts/01_task.prompt.md`,
    `---\n${JSON.stringify(front, null, 2)}\n---\n# E2E task\n\n${opts.body}\n`,
  );
  const env: Record<string, string> = {
    ...cli.env,
    ...GIT_ENV,
    [LANES[lane].cliEnv]: e2eBinary(lane) ?? lane,
    PROMPT_RUNNER_CONFIG_HOME: `${root}/config`,
    USER: "e2e",
  };
  return {
    lane,
    root,
    repo,
    packet,
    store: `${packet}/.prompt_runner`,
    server,
    env,
    configDir: cli.configDir,
    async [Symbol.asyncDispose]() {
      await server.close();
      await removeScratch(root);
    },
  };
}

/** `prompt_runner run <packet> [args…]` to completion. */
export function runPacket(s: Scenario, args: string[] = []): Promise<CliResult> {
  return runCli(["run", s.packet, ...args], { cwd: s.root, env: s.env });
}

/** A live `prompt_runner run` with its output collected in the background. */
export interface LiveRun {
  child: Deno.ChildProcess;
  /** Output so far. */
  stdout(): string;
  /** Wait for exit and return everything (kills the run after `timeoutMs`). */
  finish(timeoutMs?: number): Promise<CliResult>;
}

/** Spawn `prompt_runner run <packet> [args…]` without waiting. */
export function spawnRun(s: Scenario, args: string[] = []): LiveRun {
  const child = spawnCli(["run", s.packet, ...args], { cwd: s.root, env: s.env });
  let out = "";
  let err = "";
  const dec = new TextDecoder();
  const outDone = (async () => {
    for await (const c of child.stdout) out += dec.decode(c, { stream: true });
  })();
  const errDone = (async () => {
    for await (const c of child.stderr) err += dec.decode(c, { stream: true });
  })();
  return {
    child,
    stdout: () => out,
    async finish(timeoutMs = 90_000) {
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already gone.
        }
      }, timeoutMs);
      const status = await child.status;
      clearTimeout(timer);
      await Promise.all([outDone, errDone]);
      return { code: status.code, stdout: out, stderr: err };
    },
  };
}

/** `prompt_runner control …` from a second process. */
export function control(s: Scenario, args: string[]): Promise<CliResult> {
  return runCli(["control", ...args], { cwd: s.root, env: s.env });
}

function readJsonLines(path: string): Record<string, unknown>[] {
  let text = "";
  try {
    text = Deno.readTextFileSync(path);
  } catch {
    return [];
  }
  const out: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // A torn last line.
    }
  }
  return out;
}

/** Envelopes of `<store>/control/events.jsonl`. */
export function events(s: Scenario): Record<string, unknown>[] {
  return readJsonLines(`${s.store}/control/events.jsonl`);
}

/** Entries of `<store>/control/log.jsonl`. */
export function controlLog(s: Scenario): Record<string, unknown>[] {
  return readJsonLines(`${s.store}/control/log.jsonl`);
}

/** `state.json` of the store root. */
export function state(s: Scenario): Record<string, unknown> {
  return JSON.parse(Deno.readTextFileSync(`${s.store}/state.json`));
}

/** The state record of prompt 01. */
export function prompt01(s: Scenario): {
  status: string;
  attempts: Record<string, unknown>[];
  result: Record<string, unknown>;
} {
  const prompts = state(s).prompts as Record<string, Record<string, unknown>>;
  const p = prompts["01"] ?? {};
  return {
    status: String(p.status),
    attempts: (p.attempts as Record<string, unknown>[] | undefined) ?? [],
    result: (p.result as Record<string, unknown> | undefined) ?? {},
  };
}

/** Wait for the first event of `type` (and optional predicate on data) in events.jsonl. */
export function waitForEvent(
  s: Scenario,
  type: string,
  pred: (data: Record<string, unknown>) => boolean = () => true,
  timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
  return waitFor(
    () => events(s).find((e) => e.type === type && pred((e.data ?? {}) as Record<string, unknown>)),
    { what: `event ${type}`, timeoutMs, intervalMs: 50 },
  );
}

/** The model requests the fake received (claude: POST /v1/messages; codex: POST /v1/responses). */
export function modelRequests(s: Scenario): LoggedRequest[] {
  const path = s.lane === "claude" ? "/v1/messages" : "/v1/responses";
  return s.server.requests.filter((r) => r.method === "POST" && r.path.startsWith(path));
}

/** The session id a request carries (claude `x-claude-code-session-id`, codex `session-id`). */
export function requestSession(s: Scenario, r: LoggedRequest): string | null {
  return r.headers[s.lane === "claude" ? "x-claude-code-session-id" : "session-id"] ?? null;
}

/** Text of the latest user message of a model request (the fake's directive anchor). */
export function latestUserText(s: Scenario, r: LoggedRequest): string {
  const body = (r.body ?? {}) as Record<string, unknown>;
  if (s.lane === "claude") {
    const { anchor } = anthropicAnchor((body.messages as Parameters<typeof anthropicAnchor>[0]) ?? []);
    return anchor ? anthropicMessageText(anchor) : "";
  }
  const { anchor } = openaiAnchor((body.input as InputItem[]) ?? []);
  return anchor ? openaiItemText(anchor) : "";
}

/** The working directory a model request announces (claude system prompt, codex `<environment_context>`). */
export function requestCwd(s: Scenario, r: LoggedRequest): string | null {
  const body = (r.body ?? {}) as Record<string, unknown>;
  return s.lane === "claude" ? anthropicCwd(body) : openaiCwd((body.input as InputItem[]) ?? []);
}

/** All text of a model request's history (every message, any role). */
export function historyText(s: Scenario, r: LoggedRequest): string {
  const body = (r.body ?? {}) as Record<string, unknown>;
  if (s.lane === "claude") {
    return ((body.messages as Parameters<typeof anthropicMessageText>[0][]) ?? []).map(anthropicMessageText)
      .join("\n");
  }
  return ((body.input as InputItem[]) ?? []).map(openaiItemText).join("\n");
}

/** Live processes whose command line contains `needle` (orphan checks). */
export function processesMatching(needle: string): { pid: number; cmdline: string }[] {
  const out: { pid: number; cmdline: string }[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const pid = Number(e.name);
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ");
      if (!cmdline.includes(needle) || pid === Deno.pid) continue;
      const st = Deno.readTextFileSync(`/proc/${pid}/stat`);
      if (st.slice(st.lastIndexOf(")") + 2, st.lastIndexOf(")") + 3) === "Z") continue;
      if (readProcStat(pid)) out.push({ pid, cmdline: cmdline.trim() });
    } catch {
      // Gone.
    }
  }
  return out;
}

/** Kill processes (cleanup after a failed orphan assertion). */
export function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
}

/** Number of commits on the repo's HEAD. */
export async function commitCount(repo: string): Promise<number> {
  return Number(await git(repo, "rev-list", "--count", "HEAD"));
}

/** Make the provider's stored session unusable so that a resume reports "session not found". */
export async function destroySession(s: Scenario, sessionId: string): Promise<string[]> {
  const hits = await filesNamedLike(
    s.lane === "claude" ? `${s.configDir}/projects` : `${s.configDir}/sessions`,
    sessionId,
  );
  for (const p of hits) {
    await Deno.remove(p);
    // claude appends to its session file while the turn runs: a dangling symlink (into a directory that does not
    // exist) keeps it from coming back, and claude then reports "No conversation found".
    if (s.lane === "claude") await Deno.symlink(`${s.root}/no-such-dir/session.jsonl`, p);
  }
  return hits;
}

/** Details for assertion messages. */
export function describeRun(s: Scenario, r: CliResult): string {
  return [
    `exit ${r.code}`,
    `--- stdout ---\n${r.stdout.slice(-3000)}`,
    `--- stderr ---\n${r.stderr.slice(-3000)}`,
    `--- requests ---\n${s.server.requests.map((q) => `${q.method} ${q.path}`).join("\n")}`,
    `--- control log ---\n${controlLog(s).map((e) => JSON.stringify(e)).join("\n")}`,
    `--- runner events ---\n${
      events(s).filter((e) =>
        e.origin === "runner" || e.type === "run_cancelled" || e.type === "run_failed" ||
        (e.stream !== "initial" && e.type === "run_started")
      )
        .map((e) => `${e.type} ${e.stream ?? ""} ${JSON.stringify(e.data).slice(0, 300)}`).join("\n")
    }`,
  ].join("\n");
}
