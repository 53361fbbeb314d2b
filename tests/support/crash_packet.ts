/**
 * Crash-recovery scenarios shared by the failpoint tests and `deno task chaos`: a simulated packet whose prompts
 * each write their own files in several timed steps (appends included), and a checker that compares the real
 * outcome — git history and trailers, file contents, progress.log, state.json, `status --json`, a clean work tree —
 * with what a correct recovery must leave, returning the first divergence.
 */
import { makePacket, promptFile } from "../run/support.ts";
import { runCli } from "./cli.ts";
import { git } from "./fs.ts";

/** Options of {@link makeCrashPacket}. */
export interface CrashPacketOptions {
  /** Number of prompts (ids 01…). */
  prompts: number;
  /** Pause between the writes of a prompt (ms). */
  stepMs: number;
  /** Write the log file with two appends (true) or two overwrites (false; plain `run` reruns every prompt). */
  append: boolean;
}

/** The prompt ids of a crash packet. */
export function crashIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String(i + 1).padStart(2, "0"));
}

/** Expected files (path in repo `app` → content) of prompt `id`. */
export function expectedFiles(id: string): Record<string, string> {
  return { [`p${id}/a.txt`]: `a-${id}\n`, [`p${id}/log.txt`]: "one\ntwo\n", [`p${id}/b.txt`]: `b-${id}\n` };
}

function script(id: string, o: CrashPacketOptions): string {
  const second = o.append
    ? `{path: p${id}/log.txt, text: "two\\n", append: true}`
    : `{path: p${id}/log.txt, text: "one\\ntwo\\n"}`;
  const first = o.append
    ? `{path: p${id}/log.txt, text: "one\\n", append: true}`
    : `{path: p${id}/log.txt, text: "one\\n"}`;
  return [
    "verify:",
    `  files_exist: [p${id}/a.txt, p${id}/b.txt]`,
    "  contains:",
    `    - {path: p${id}/log.txt, text: "one\\ntwo\\n"}`,
    "simulate:",
    "  attempts:",
    "    - events:",
    `        - message: start ${id}`,
    `        - write: {path: p${id}/a.txt, text: "a-${id}\\n"}`,
    `        - wait_ms: ${o.stepMs}`,
    `        - write: ${first}`,
    `        - wait_ms: ${o.stepMs}`,
    `        - write: ${second}`,
    `        - wait_ms: ${o.stepMs}`,
    `        - tool: {name: Write, writes: [{path: p${id}/b.txt, text: "b-${id}\\n"}], output: ok}`,
    `        - message: done ${id}`,
  ].join("\n");
}

/** Create `<root>/pkt` with the crash packet and its repo `app`; returns the packet dir. */
export async function makeCrashPacket(root: string, o: CrashPacketOptions): Promise<string> {
  const files: Record<string, string> = {};
  for (const id of crashIds(o.prompts)) files[`${id}_p.prompt.md`] = promptFile(id, script(id, o));
  return await makePacket(root, files);
}

/** What {@link checkRecovered} may accept. */
export interface CheckOptions {
  /** Plain `run` reruns completed prompts: their latest progress line may say `no_changes`. */
  allowNoChanges: boolean;
}

/**
 * Check a packet after its final (resumed) run: every prompt completed with exactly one commit holding exactly its
 * own files and its own trailer; files hold their content once; progress.log, state.json and `status --json` agree
 * with git; nothing dirty. Returns the first divergence, or null.
 */
export async function checkRecovered(pkt: string, n: number, o: CheckOptions): Promise<string | null> {
  const repo = `${pkt}/app`;
  const ids = crashIds(n);
  const dirty = await git(repo, "status", "--porcelain");
  if (dirty) return `git: work tree dirty: ${dirty.split("\n").slice(0, 3).join("; ")}`;
  const log = await git(
    repo,
    "log",
    "--format=%x1e%H%x1f%(trailers:key=Prompt-Runner-Prompt,valueonly)",
    "--name-only",
  );
  const byPrompt = new Map<string, { sha: string; files: string[] }[]>();
  for (const rec of log.split("\x1e").slice(1)) {
    const [head, ...rest] = rec.split("\n");
    const [sha, prompt] = (head ?? "").split("\x1f");
    const key = (prompt ?? "").trim() || "(no trailer)";
    const files = rest.map((l) => l.trim()).filter((l) => l !== "").sort();
    byPrompt.set(key, [...(byPrompt.get(key) ?? []), { sha: sha!, files }]);
  }
  const initial = byPrompt.get("(no trailer)") ?? [];
  if (initial.length !== 1) return `git: ${initial.length} commits without a prompt trailer (expected the initial one)`;
  for (const key of byPrompt.keys()) {
    if (key !== "(no trailer)" && !ids.includes(key)) return `git: a commit names unknown prompt ${key}`;
  }
  const progressText = await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`).catch(() => "");
  const latest = new Map<string, string[]>();
  for (const line of progressText.split("\n")) {
    if (!line.trim()) continue;
    const parts = line.split(":");
    latest.set(parts[0]!, parts);
  }
  const state = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/state.json`)) as {
    prompts: Record<string, { status: string; attempts: { status: string }[] }>;
  };
  for (const id of ids) {
    const commits = byPrompt.get(id) ?? [];
    if (commits.length !== 1) return `git: prompt ${id} has ${commits.length} commits (expected exactly one)`;
    const want = Object.keys(expectedFiles(id)).sort();
    if (commits[0]!.files.join(",") !== want.join(",")) {
      return `git: prompt ${id}'s commit holds [${commits[0]!.files.join(", ")}], expected [${want.join(", ")}]`;
    }
    for (const [path, text] of Object.entries(expectedFiles(id))) {
      const got = await Deno.readTextFile(`${repo}/${path}`).catch(() => null);
      if (got !== text) return `files: ${path} is ${JSON.stringify(got)}, expected ${JSON.stringify(text)}`;
    }
    const line = latest.get(id);
    if (!line || line[1] !== "completed") {
      return `progress.log: prompt ${id} latest line is ${line?.join(":") ?? "missing"}`;
    }
    const suffix = line.length > 5 ? line.at(-1)! : "";
    const shaOk = /^[0-9a-f]{7,40}$/.test(suffix) && commits[0]!.sha.startsWith(suffix);
    if (!shaOk && !(o.allowNoChanges && suffix === "no_changes")) {
      return `progress.log: prompt ${id} completed with "${suffix}", expected its commit ${
        commits[0]!.sha.slice(0, 8)
      }`;
    }
    const entry = state.prompts[id];
    if (entry?.status !== "completed") return `state.json: prompt ${id} is ${entry?.status ?? "missing"}`;
    if (entry.attempts.some((a) => a.status === "running")) return `state.json: prompt ${id} has a running attempt`;
  }
  const status = await runCli(["status", pkt, "--json"]);
  if (status.code !== 0) return `status: exit ${status.code}: ${status.stderr.trim()}`;
  const s = JSON.parse(status.stdout) as { state: string; progress: { completed: number; selected: number } };
  if (s.state !== "completed") return `status: state ${s.state}, expected completed`;
  if (s.progress.completed !== s.progress.selected) {
    return `status: ${s.progress.completed}/${s.progress.selected} prompts complete`;
  }
  return null;
}
