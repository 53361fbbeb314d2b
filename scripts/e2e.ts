/**
 * `deno task e2e`: the offline end-to-end suite with the real `claude` and `codex` CLIs (docs/reference/providers.md §7)
 * and the dashboard in a headless browser (docs/dashboard.md).
 *
 * Installs the CLIs when missing (when that is impossible, a visible SKIPPED notice and only the browser cases run),
 * runs `deno test -A tests/e2e/`, prints `N passed, N failed` parsed from Deno's summary, and fails when any process the
 * suite started (tagged through the `PROMPT_RUNNER_E2E_RUN_TAG` environment variable) is still alive afterwards.
 *
 * Usage: deno task e2e [-- <extra deno test args, e.g. --filter codex>]
 */
import { ensureE2eTools } from "./install_e2e_tools.ts";
import { E2E_TAG_VAR } from "../tests/support/e2e_env.ts";

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

/**
 * The `deno test` arguments for the suite: the extra ones given (a leading `--`, as `deno task e2e -- --filter codex`
 * passes it, is dropped — after `--` deno test would take `tests/e2e/` as a script argument and run every test).
 */
export function e2eTestArgs(extra: readonly string[], paths: readonly string[] = ["tests/e2e/"]): string[] {
  const given = extra[0] === "--" ? extra.slice(1) : extra;
  return ["test", "-A", "--no-check=remote", ...given, ...paths];
}

/** The cases that need no provider CLI (the dashboard in a browser): they still run when the CLIs cannot be installed. */
export const BROWSER_ONLY_PATHS: readonly string[] = [
  "tests/e2e/dashboard_test.ts",
  "tests/e2e/dashboard_render_test.ts",
];

/** Counts parsed from Deno's test summary line (`ok | 3 passed | 0 failed (2s)`), or null when absent. */
export function parseTestSummary(output: string): { passed: number; failed: number } | null {
  // deno-lint-ignore no-control-regex
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  let found: { passed: number; failed: number } | null = null;
  for (const line of plain.split("\n")) {
    const m = /^(?:ok|FAILED)\s*\|\s*(\d+) passed(?: \((\d+) steps?\))?\s*\|\s*(\d+) failed/.exec(line.trim());
    if (m) found = { passed: Number(m[1]), failed: Number(m[3]) };
  }
  return found;
}

/**
 * Live processes whose environment carries `VAR=tag`. Deno only grants `/proc` with --allow-all, so the scan runs
 * in `sh` (grep over `/proc/<pid>/environ`, then `ps` for the survivors' names).
 */
export async function taggedProcesses(tag: string): Promise<{ pid: number; comm: string; cmdline: string }[]> {
  const needle = `${E2E_TAG_VAR}=${tag}`;
  const script = `grep -lsaF -- "$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3`;
  const found = await new Deno.Command("sh", {
    args: ["-c", script, "sh", needle],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  const pids = new TextDecoder().decode(found.stdout).split("\n").map(Number).filter((n) => n > 0 && n !== Deno.pid);
  if (!pids.length) return [];
  const ps = await new Deno.Command("ps", {
    args: ["-o", "pid=,stat=,comm=,args=", "-p", pids.join(",")],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  const out: { pid: number; comm: string; cmdline: string }[] = [];
  for (const line of new TextDecoder().decode(ps.stdout).split("\n")) {
    const m = /^\s*(\d+)\s+(\S+)\s+(\S+)\s*(.*)$/.exec(line);
    if (!m || (m[2] ?? "").startsWith("Z")) continue;
    out.push({ pid: Number(m[1]), comm: m[3] ?? "", cmdline: m[4] ?? "" });
  }
  return out;
}

async function main(): Promise<number> {
  if (Deno.build.os !== "linux") {
    console.log("SKIPPED: the e2e suite needs Linux (/proc) — 0 passed, 0 failed");
    return 0;
  }
  let paths: readonly string[] = ["tests/e2e/"];
  if (!(await ensureE2eTools())) {
    console.log("");
    console.log("==================================================================");
    console.log(" SKIPPED: the provider cases — claude/codex CLIs could not be installed");
    console.log(" (npm install into tests/.tools failed; set PROMPT_RUNNER_E2E_TOOLS");
    console.log("  to a directory that holds node_modules/.bin/{claude,codex});");
    console.log(" the dashboard's browser cases still run");
    console.log("==================================================================");
    paths = BROWSER_ONLY_PATHS;
  }
  const tag = `e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: e2eTestArgs(Deno.args, paths),
    cwd: ROOT,
    env: { [E2E_TAG_VAR]: tag, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let captured = "";
  const dec = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>, sink: { writeSync(b: Uint8Array): number }) => {
    for await (const chunk of stream) {
      captured += dec.decode(chunk, { stream: true });
      let off = 0;
      while (off < chunk.length) off += sink.writeSync(chunk.subarray(off));
    }
  };
  await Promise.all([pump(child.stdout, Deno.stdout), pump(child.stderr, Deno.stderr)]);
  const status = await child.status;

  // Give interrupted providers a moment to finish exiting, then look for survivors.
  let strays = await taggedProcesses(tag);
  for (let i = 0; i < 20 && strays.length; i++) {
    await new Promise((r) => setTimeout(r, 100));
    strays = await taggedProcesses(tag);
  }
  const summary = parseTestSummary(captured);
  let passed = summary?.passed ?? 0;
  let failed = summary?.failed ?? (status.success ? 0 : 1);
  if (strays.length) {
    console.log(`error: ${strays.length} process(es) started by the e2e suite are still running:`);
    for (const s of strays) console.log(`  ${s.pid} ${s.comm}: ${s.cmdline.slice(0, 160)}`);
    for (const s of strays) {
      try {
        Deno.kill(s.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    failed += 1;
  }
  if (!summary && status.success) passed = 0;
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 && status.success ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main());
