/**
 * Records raw stdout of the real `claude` and `codex` CLIs driven against the loopback fake servers into
 * `tests/fixtures/lanes/{claude,codex}/<case>.jsonl`, with `<case>.meta.json` (argv, exit code, signal, stderr,
 * per-line timing, interrupt facts, a summary of the requests the fake saw). Scratch paths are rewritten to
 * `/scratch/e2e` so captures carry no machine-specific path.
 *
 * Usage: deno run -A scripts/record_lane_fixtures.ts [--only claude|codex] [--case NAME]… [--out DIR]
 * Re-recording changes session ids, uuids and timings, and tests/lanes pins values of the committed captures: record
 * into `--out` first and replace the committed files only together with the tests that read them.
 */
import { startFakeAnthropic } from "../tests/support/fake_anthropic.ts";
import { startFakeOpenAI } from "../tests/support/fake_openai.ts";
import type { FakeServer, LoggedRequest } from "../tests/support/fake_server_common.ts";
import { claudeEnv, codexEnv, e2eBinary, removeScratch } from "../tests/support/e2e_env.ts";
import {
  afterLine,
  driveCli,
  type DriveResult,
  type InterruptPlan,
  killAll,
  waitForDescendant,
} from "../tests/support/fake_server_driver.ts";
import { ensureE2eTools } from "./install_e2e_tools.ts";

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");
let OUT = `${ROOT}/tests/fixtures/lanes`;
/** Placeholder for the scratch root in recorded files. */
const SCRATCH = "/scratch/e2e";

type Cli = "claude" | "codex";

interface Leg {
  prompt: string;
  /** Resume the session of the previous leg (or `unknown` for a random id). */
  resume?: "previous" | "unknown";
  /** `stream`/`tool`: after the readiness rule; `first_line`: at the first stdout line + 0 ms (init / thread.started). */
  interrupt?: "stream" | "tool" | "first_line";
  signal?: Deno.Signal;
  /** Run this leg from another cwd (claude: resume must run in the original cwd). */
  otherCwd?: boolean;
}

interface CaseDef {
  name: string;
  description: string;
  /** Files created in the scratch repo before the first leg. */
  files?: Record<string, string>;
  /** Earlier legs (not saved as the capture, only summarised in meta). */
  setup?: Leg[];
  leg: Leg;
}

const CASES: CaseDef[] = [
  { name: "text", description: "plain text turn", leg: { prompt: "Say hello. [[e2e:text Hello there, operator.]]" } },
  {
    name: "write",
    description: "a file-writing tool turn (claude Write; codex apply_patch Add File) then a closing text turn",
    leg: { prompt: "Create the file. [[e2e:write hello.txt hello world]]" },
  },
  {
    name: "edit",
    description: "an edit of an existing file (claude Read then Edit; codex apply_patch Update File)",
    files: { "notes.txt": "alpha\nbeta\ngamma\n" },
    leg: { prompt: "Edit the notes. [[e2e:edit notes.txt beta => BETA]]" },
  },
  {
    name: "bash",
    description: "a shell tool turn (claude Bash; codex exec_command) then a closing text turn",
    leg: { prompt: "Run a command. [[e2e:bash echo hi from the shell]]" },
  },
  {
    name: "thinking",
    description: "thinking (claude thinking block with signature) / reasoning summary (codex) then text",
    leg: { prompt: "Think first. [[e2e:thinking]] [[e2e:text I thought about it.]]" },
  },
  { name: "error_400", description: "HTTP 400 invalid request", leg: { prompt: "Fail. [[e2e:error 400]]" } },
  { name: "error_429", description: "HTTP 429 rate limit (every request)", leg: { prompt: "Fail. [[e2e:error 429]]" } },
  {
    name: "error_500",
    description: "HTTP 500 server error (every request)",
    leg: { prompt: "Fail. [[e2e:error 500]]" },
  },
  {
    name: "sigint_stream",
    description: "SIGINT to the process group mid-stream, after the readiness rule",
    leg: { prompt: "Stream slowly. [[e2e:slow 20]]", interrupt: "stream", signal: "SIGINT" },
  },
  {
    name: "sigterm_stream",
    description: "SIGTERM to the process group mid-stream, after the readiness rule",
    leg: { prompt: "Stream slowly. [[e2e:slow 20]]", interrupt: "stream", signal: "SIGTERM" },
  },
  {
    name: "sigint_first_line",
    description: "SIGINT at the first stdout line + 0 ms (claude system/init, codex thread.started) — before readiness",
    leg: { prompt: "Stream slowly. [[e2e:slow 4]]", interrupt: "first_line", signal: "SIGINT" },
  },
  {
    name: "sigint_tool",
    description: "SIGINT to the process group while a Bash/exec tool runs `sleep 30`",
    leg: { prompt: "Run a long command. [[e2e:bash sleep 30]]", interrupt: "tool", signal: "SIGINT" },
  },
  {
    name: "resume",
    description: "resume of a completed session with a new prompt (same id re-emitted)",
    setup: [{ prompt: "First turn. [[e2e:text First answer.]]" }],
    leg: { prompt: "Second turn. [[e2e:text Second answer.]]", resume: "previous" },
  },
  {
    name: "resume_after_sigint_stream",
    description: "steer delivery: SIGINT mid-stream, then resume the same session with steer text",
    setup: [{ prompt: "Stream slowly. [[e2e:slow 20]]", interrupt: "stream", signal: "SIGINT" }],
    leg: { prompt: "Operator steer: use the tokenizer tests. [[e2e:text Steered.]]", resume: "previous" },
  },
  {
    name: "resume_after_sigint_tool",
    description: "steer delivery: SIGINT mid-tool, then resume the same session with steer text",
    setup: [{ prompt: "Run a long command. [[e2e:bash sleep 30]]", interrupt: "tool", signal: "SIGINT" }],
    leg: { prompt: "Operator steer: skip the slow command. [[e2e:text Steered.]]", resume: "previous" },
  },
  {
    name: "resume_unknown",
    description: "resume of an unknown session id (session not found)",
    leg: { prompt: "Continue. [[e2e:text unreachable]]", resume: "unknown" },
  },
  {
    name: "resume_other_cwd",
    description: "resume of a real session from a different cwd (claude: not found; codex: works)",
    setup: [{ prompt: "First turn. [[e2e:text First answer.]]" }],
    leg: { prompt: "Second turn. [[e2e:text Second answer.]]", resume: "previous", otherCwd: true },
  },
];

function claudeArgs(leg: Leg, sessionId: string | null): string[] {
  const args = ["-p"];
  if (leg.resume) args.push("--resume", sessionId ?? crypto.randomUUID());
  args.push(
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    "Bash",
    "--",
    leg.prompt,
  );
  return args;
}

function codexArgs(leg: Leg, threadId: string | null): string[] {
  if (leg.resume) {
    return [
      "exec",
      "resume",
      "--json",
      "--skip-git-repo-check",
      "-c",
      'sandbox_mode="workspace-write"',
      "-c",
      'approval_policy="never"',
      threadId ?? fakeUuidV7(),
      leg.prompt,
    ];
  }
  return [
    "exec",
    "--json",
    "--skip-git-repo-check",
    "-s",
    "workspace-write",
    "-c",
    'approval_policy="never"',
    leg.prompt,
  ];
}

function fakeUuidV7(): string {
  const hex = crypto.randomUUID().replaceAll("-", "");
  const ts = Date.now().toString(16).padStart(12, "0");
  const s = ts + "7" + hex.slice(13, 32);
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20, 32)}`;
}

function isStreamDelta(o: Record<string, unknown>): boolean {
  const ev = o.event as Record<string, unknown> | undefined;
  const delta = ev?.delta as Record<string, unknown> | undefined;
  return o.type === "stream_event" && ev?.type === "content_block_delta" && delta?.type === "text_delta";
}

/** The interrupt rule for a leg: readiness per docs/reference/control-plane.md §8.5, then a margin so the moment is unambiguous. */
function interruptPlan(cli: Cli, leg: Leg): InterruptPlan | undefined {
  if (!leg.interrupt) return undefined;
  const signal = leg.signal ?? "SIGINT";
  if (leg.interrupt === "first_line") {
    return { signal, trigger: () => Promise.resolve() };
  }
  if (leg.interrupt === "stream") {
    // claude: after several text deltas have streamed; codex (no deltas in exec --json): turn.started + 600 ms.
    const rule = cli === "claude" ? afterLine(isStreamDelta, 600) : afterLine((o) => o.type === "turn.started", 600);
    return { signal, trigger: (line) => rule(line) };
  }
  return {
    signal,
    trigger: (line, ctx) => {
      let o: Record<string, unknown>;
      try {
        o = JSON.parse(line);
      } catch {
        return null;
      }
      const isToolStart = cli === "claude"
        ? o.type === "assistant" && JSON.stringify(o).includes('"name":"Bash"')
        : o.type === "item.started" && JSON.stringify(o).includes('"command_execution"');
      if (!isToolStart) return null;
      return waitForDescendant(ctx.pid, /^sleep$/).then(() => new Promise((r) => setTimeout(r, 300)));
    },
  };
}

function sessionIdOf(cli: Cli, r: DriveResult): string | null {
  for (const { line } of r.lines) {
    try {
      const o = JSON.parse(line) as Record<string, unknown>;
      if (cli === "claude" && typeof o.session_id === "string") return o.session_id;
      if (cli === "codex" && o.type === "thread.started" && typeof o.thread_id === "string") return o.thread_id;
    } catch {
      // Not JSON.
    }
  }
  return null;
}

/** A compact view of one request: what the oracles look at. */
function summarise(cli: Cli, req: LoggedRequest): Record<string, unknown> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const headerKeys = cli === "claude"
    ? ["x-claude-code-session-id", "user-agent", "x-app", "anthropic-version"]
    : ["session-id", "thread-id", "originator", "x-codex-turn-metadata"];
  const headers: Record<string, string> = {};
  for (const k of headerKeys) if (req.headers[k] !== undefined) headers[k] = req.headers[k]!;
  const out: Record<string, unknown> = { method: req.method, path: req.path, headers };
  const clip = (s: string) => (s.length > 240 ? `${s.slice(0, 240)}…[${s.length} chars]` : s);
  if (cli === "claude" && Array.isArray(body.messages)) {
    out.model = body.model;
    out.messages = (body.messages as { role: string; content: unknown }[]).map((m) => ({
      role: m.role,
      content: typeof m.content === "string" ? clip(m.content) : (m.content as Record<string, unknown>[]).map((b) => {
        const c: Record<string, unknown> = { type: b.type };
        if (typeof b.text === "string") c.text = clip(b.text);
        if (b.type === "tool_use") Object.assign(c, { name: b.name, input: b.input });
        if (b.type === "tool_result") {
          c.is_error = b.is_error ?? false;
          c.content = clip(typeof b.content === "string" ? b.content : JSON.stringify(b.content));
        }
        if (b.type === "thinking") c.signature = b.signature;
        return c;
      }),
    }));
  }
  if (cli === "codex" && Array.isArray(body.input)) {
    out.model = body.model;
    out.input = (body.input as Record<string, unknown>[]).filter((i) => i.role !== "developer").map((i) => {
      const c: Record<string, unknown> = { type: i.type, role: i.role };
      if (Array.isArray(i.content)) {
        c.text = clip((i.content as { text?: string }[]).map((p) => p.text ?? "").join("\n"));
      }
      for (const k of ["name", "arguments", "input", "output", "call_id"]) {
        if (typeof i[k] === "string") c[k] = clip(i[k] as string);
      }
      return c;
    });
  }
  return out;
}

function scrub(text: string, root: string): string {
  const dashed = root.replaceAll("/", "-").replaceAll(".", "-");
  return text.replaceAll(root, SCRATCH).replaceAll(dashed, SCRATCH.replaceAll("/", "-"));
}

async function recordCase(cli: Cli, bin: string, def: CaseDef): Promise<Record<string, unknown>> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: `rec-${cli}-` }));
  const server: FakeServer = cli === "claude" ? await startFakeAnthropic() : await startFakeOpenAI();
  try {
    const cwd = `${root}/repo`;
    const other = `${root}/other`;
    await Deno.mkdir(cwd, { recursive: true });
    await Deno.mkdir(other, { recursive: true });
    for (const [rel, text] of Object.entries(def.files ?? {})) await Deno.writeTextFile(`${cwd}/${rel}`, text);
    const { env } = cli === "claude" ? await claudeEnv(root, server.port) : await codexEnv(root, server.port);
    let sessionId: string | null = null;
    const setupMeta: Record<string, unknown>[] = [];
    const legs = [...(def.setup ?? []), def.leg];
    let result: DriveResult | null = null;
    let argv: string[] = [];
    let firstRequest = 0;
    for (const [i, leg] of legs.entries()) {
      const isLast = i === legs.length - 1;
      argv = cli === "claude" ? claudeArgs(leg, sessionId) : codexArgs(leg, sessionId);
      firstRequest = server.requests.length;
      const plan = interruptPlan(cli, leg);
      const r = await driveCli(bin, argv, {
        cwd: leg.otherCwd ? other : cwd,
        env,
        ...(plan ? { interrupt: plan } : {}),
        timeoutMs: 90_000,
      });
      killAll(r.orphans);
      sessionId = sessionIdOf(cli, r) ?? sessionId;
      if (!isLast) {
        setupMeta.push({
          argv: [cli, ...argv],
          exit_code: r.code,
          signal: r.signal,
          session_id: sessionId,
          interrupt: r.interrupt && { signal: r.interrupt.signal, at_ms: r.interrupt.atMs },
          stdout_lines: r.lines.length,
        });
      }
      result = r;
    }
    const r = result!;
    const files: Record<string, string> = {};
    for (const name of Object.keys(def.files ?? {}).concat(["hello.txt"])) {
      try {
        files[name] = await Deno.readTextFile(`${cwd}/${name}`);
      } catch {
        // Not created.
      }
    }
    const meta = {
      cli,
      case: def.name,
      description: def.description,
      version: cli === "claude" ? "2.1.197" : "0.171.0",
      argv: [cli, ...argv],
      cwd: def.leg.otherCwd ? `${SCRATCH}/other` : `${SCRATCH}/repo`,
      setup: setupMeta,
      exit_code: r.code,
      signal: r.signal,
      duration_ms: r.durationMs,
      stderr: r.stderr,
      line_times_ms: r.lines.map((l) => l.t),
      interrupt: r.interrupt &&
        {
          signal: r.interrupt.signal,
          at_ms: r.interrupt.atMs,
          after_line: r.interrupt.afterLine,
          descendants: r.interrupt.descendants.map((p) => ({ comm: p.comm, same_group: p.pgid === p.pid })),
        },
      orphans: r.orphans.map((p) => p.comm),
      files_after: files,
      requests: server.requests.slice(firstRequest).map((q) => summarise(cli, q)),
    };
    await Deno.mkdir(`${OUT}/${cli}`, { recursive: true });
    await Deno.writeTextFile(`${OUT}/${cli}/${def.name}.jsonl`, scrub(r.stdout, root));
    await Deno.writeTextFile(
      `${OUT}/${cli}/${def.name}.meta.json`,
      scrub(JSON.stringify(meta, null, 2), root) + "\n",
    );
    return meta;
  } finally {
    await server.close();
    await removeScratch(root);
  }
}

async function main(): Promise<number> {
  const only = new Set<string>();
  const cases = new Set<string>();
  for (let i = 0; i < Deno.args.length; i++) {
    if (Deno.args[i] === "--only") only.add(Deno.args[++i] ?? "");
    if (Deno.args[i] === "--case") cases.add(Deno.args[++i] ?? "");
    if (Deno.args[i] === "--out") OUT = Deno.args[++i] ?? OUT;
  }
  if (!(await ensureE2eTools())) {
    console.error("SKIPPED: claude/codex could not be installed; nothing recorded");
    return 1;
  }
  const jobs: Promise<void>[] = [];
  for (const cli of ["claude", "codex"] as const) {
    if (only.size && !only.has(cli)) continue;
    const bin = e2eBinary(cli)!;
    jobs.push((async () => {
      for (const def of CASES) {
        if (cases.size && !cases.has(def.name)) continue;
        const meta = await recordCase(cli, bin, def);
        const lines = String(meta.line_times_ms && (meta.line_times_ms as number[]).length);
        console.log(`${cli.padEnd(6)} ${def.name.padEnd(28)} exit ${meta.exit_code} (${lines} lines)`);
      }
    })());
  }
  await Promise.all(jobs);
  return 0;
}

if (import.meta.main) Deno.exit(await main());
