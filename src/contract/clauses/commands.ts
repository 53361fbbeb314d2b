/** `commands` (docs/reference/contract.md §4): run an executable under a deadline and judge exit code and output. */
import { isAbsolute, join } from "../../util/path.ts";
import { type ClauseEnv, fail, fault, makeItem, pass, regexTimeout, type Verdict } from "./_common.ts";
import { testGuarded } from "../regex_guard.ts";
import { compilePattern } from "./patterns.ts";
import { isLegacyCommand, isRecord, pick, substituteRepo, validateEntry } from "../entries.ts";
import { canonicalJoin } from "../paths.ts";
import { type BoundedResult, runBounded } from "../bounded_process.ts";
import { restoreRegenerated, stageRegenerated } from "./regenerate.ts";
import type { ReportItem } from "../types.ts";

/** Default command deadline: 10 minutes. */
const DEFAULT_TIMEOUT_MS = 600_000;

/** Quote one argv element for display when it needs it. */
export function shellQuote(s: string): string {
  if (s !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replaceAll("'", `'"'"'`)}'`;
}

/** Display form of an argv: each element shell-quoted when needed, joined by spaces. */
export function displayArgv(argv: string[]): string {
  return argv.map(shellQuote).join(" ");
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const st = await Deno.stat(path);
    return st.isFile && ((st.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** Search `PATH` for a bare executable name. */
async function whichOnPath(name: string, pathVar: string): Promise<string | null> {
  for (const dir of pathVar.split(":")) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

type Lookup = { ok: true; path: string } | { ok: false; verdict: Verdict };

/** Executable lookup rules of docs/reference/contract.md §4 point 3 with their verdicts. */
async function lookupExecutable(exec: string, cwd: string, pathVar: string): Promise<Lookup> {
  if (isAbsolute(exec)) {
    return (await isExecutableFile(exec))
      ? { ok: true, path: exec }
      : { ok: false, verdict: fault(`executable not found: ${exec}`) };
  }
  if (exec.includes("/")) {
    const abs = join(cwd, exec);
    try {
      await Deno.stat(abs);
      return { ok: true, path: abs };
    } catch {
      return { ok: false, verdict: fail(`executable not found: ${abs}`) };
    }
  }
  const found = await whichOnPath(exec, pathVar);
  return found ? { ok: true, path: found } : { ok: false, verdict: fault(`executable not found on PATH: ${exec}`) };
}

function withOutput(head: string, output: string): string {
  const t = output.trim();
  return t === "" ? head : `${head}\n${t}`;
}

function truncationPrefix(res: BoundedResult, details: string): string {
  return res.droppedBytes > 0 ? `[output truncated: ${res.droppedBytes} earlier bytes dropped]\n${details}` : details;
}

/** The verdict table of docs/reference/contract.md §4 for a finished process (pure). */
function commandVerdict(
  res: BoundedResult,
  opts: {
    legacy: boolean;
    timeoutMs: number;
    faultExitCodes: number[];
    stdoutContains: string | null;
    stdoutMatches: string | null;
    /** Whether `stdoutMatches` matched the output, searched under a deadline (src/contract/regex_guard.ts). */
    stdoutMatched: boolean | "timeout";
  },
): Verdict {
  const out = res.output;
  let v: Verdict;
  if (res.outcome === "launch_error") return fault(`could not launch: ${res.error ?? "unknown error"}`);
  // Never a verdict on the work: the run was interrupted (the runner discards a report that did not pass then).
  if (res.outcome === "cancelled") return fault(withOutput("stopped: the run was interrupted", out));
  if (res.outcome === "timeout") v = fault(withOutput(`timed out after ${opts.timeoutMs} ms`, out), "verifier_timeout");
  else if (opts.legacy && res.code === 126) v = fault(withOutput("command found but not executable", out));
  else if (opts.legacy && res.code === 127) v = fault(withOutput("command not found", out));
  else if (opts.legacy && res.code === 124) v = fault(withOutput("killed by timeout", out), "verifier_timeout");
  else if (res.code !== null && opts.faultExitCodes.includes(res.code)) {
    v = fault(withOutput(`exit ${res.code} is declared a fault`, out));
  } else if (res.code === 0) {
    if (opts.stdoutContains !== null) {
      v = out.includes(opts.stdoutContains)
        ? pass(out.trim() || "ok")
        : fail(withOutput(`stdout missing ${JSON.stringify(opts.stdoutContains)}`, out));
    } else if (opts.stdoutMatches !== null) {
      const re = compilePattern(opts.stdoutMatches, "iu");
      if (typeof re === "string") v = fail(`invalid stdout_matches regex: ${re}`);
      else if (opts.stdoutMatched === "timeout") {
        v = fault(withOutput(regexTimeout(opts.stdoutMatches, " on the output"), out), "verifier_timeout");
      } else {v = opts.stdoutMatched
          ? pass(out.trim() || "ok")
          : fail(withOutput(`stdout did not match /${opts.stdoutMatches}/`, out));}
    } else v = pass(out.trim() || "ok");
  } else v = fail(withOutput(res.code === null ? `killed by ${res.signal ?? "signal"}` : `exit ${res.code}`, out));
  return { ...v, details: truncationPrefix(res, v.details) };
}

function timeoutOf(obj: Record<string, unknown>): number {
  const t = obj.timeout_ms;
  return typeof t === "number" && Number.isInteger(t) && t > 0 ? t : DEFAULT_TIMEOUT_MS;
}

/** `commands`: evaluate one structured or legacy entry. */
export async function checkCommand(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  const legacy = isLegacyCommand(entry);
  const obj = isRecord(entry) ? entry : {};
  const repoName = typeof obj.repo === "string" ? obj.repo : null;
  const repo = repoName ?? env.scopeRepo;
  const head = { id, clause: "commands" as const, kind: "command", repo };
  const problem = validateEntry("commands", entry);
  const base = { mode: legacy ? "legacy" : "structured" };
  if (problem !== null) return makeItem(head, fail(problem), base);
  let root = env.scope;
  if (repoName !== null) {
    const r = env.repos[repoName];
    if (r === undefined) return makeItem(head, fail(`unknown repo: ${repoName}`), base);
    root = r;
  }
  const cwd = canonicalJoin(root, typeof obj.cwd === "string" ? obj.cwd : ".");
  const timeoutMs = timeoutOf(obj);
  let argv: string[];
  let display: string;
  if (legacy) {
    const s = typeof entry === "string" ? entry : String(pick(obj, "run", "command"));
    argv = ["bash", "-c", s];
    display = s;
  } else {
    const rawExec = String(pick(obj, "exec", "program"));
    // An exec equal to an `@`-prefixed repo-index key (e.g. `@artifact:tools`) names that entry's path.
    const exec = rawExec.startsWith("@") && Object.hasOwn(env.repos, rawExec)
      ? env.repos[rawExec]!
      : substituteRepo(rawExec, env.repos);
    const rawArgs = pick(obj, "args", "argv");
    const args = (Array.isArray(rawArgs) ? rawArgs : []).map((a) => substituteRepo(String(a), env.repos));
    argv = [exec, ...args];
    display = displayArgv(argv);
  }
  const extraEnv: Record<string, string> = {};
  if (isRecord(obj.env)) { for (const [k, v] of Object.entries(obj.env)) extraEnv[k] = String(v); }
  const runEnv: Record<string, string> = {
    ...(env.ctx.env ?? {}),
    ...extraEnv,
    PROMPT_RUNNER_PROMPT_ID: env.ctx.promptId,
    PROMPT_RUNNER_RUN_ID: env.ctx.runId ?? "",
    PROMPT_RUNNER_PACKET_DIR: env.ctx.packetDir,
  };
  const fields = (res: BoundedResult | null): Record<string, unknown> => ({
    ...base,
    command: display,
    argv,
    cwd,
    timeout_ms: timeoutMs,
    exit_code: res?.code ?? null,
    signal: res?.signal ?? null,
    duration_ms: res?.durationMs ?? 0,
    output_truncated: (res?.droppedBytes ?? 0) > 0,
  });
  const pathVar = runEnv.PATH ?? Deno.env.get("PATH") ?? "";
  const found = await lookupExecutable(argv[0]!, cwd, pathVar);
  if (!found.ok) return makeItem(head, found.verdict, fields(null));
  try {
    const st = await Deno.stat(cwd);
    if (!st.isDirectory) return makeItem(head, fault(`could not launch: cwd is not a directory: ${cwd}`), fields(null));
  } catch {
    return makeItem(head, fault(`could not launch: cwd does not exist: ${cwd}`), fields(null));
  }
  const regenerates = !legacy && Array.isArray(obj.regenerates) ? obj.regenerates.map(String) : [];
  const staged = await stageRegenerated(root, regenerates);
  if (!staged.ok) return makeItem(head, fault(`could not stage regenerated outputs: ${staged.error}`), fields(null));
  const signal = env.ctx.signal;
  const res = await runBounded({
    argv: [found.path, ...argv.slice(1)],
    cwd,
    env: runEnv,
    timeoutMs,
    ...(signal ? { signal } : {}),
  });
  // The command may have changed a work tree: later git clauses must look again.
  env.git.clear();
  const stdoutMatches = typeof obj.stdout_matches === "string" ? obj.stdout_matches : null;
  // Searched only where the verdict reads it: exit 0, no stdout_contains, a pattern that compiles.
  const searched = stdoutMatches !== null && res.outcome === "exited" && res.code === 0 &&
    typeof obj.stdout_contains !== "string" && typeof compilePattern(stdoutMatches, "iu") !== "string";
  let verdict = commandVerdict(res, {
    legacy,
    timeoutMs,
    faultExitCodes: Array.isArray(obj.fault_exit_codes) ? obj.fault_exit_codes.filter(Number.isInteger) : [],
    stdoutContains: typeof obj.stdout_contains === "string" ? obj.stdout_contains : null,
    stdoutMatches,
    stdoutMatched: searched ? await testGuarded(stdoutMatches, "iu", res.output) : false,
  });
  const extra = fields(res);
  if (regenerates.length) {
    const done = await restoreRegenerated(root, regenerates, verdict.status === "pass");
    if (done.regenerated) extra.regenerated = regenerates;
    else if (verdict.status === "pass" && done.missing.length) {
      verdict = fail(`regenerated output missing or empty: ${done.missing.join(", ")}`);
    }
  }
  return makeItem(head, verdict, extra);
}
