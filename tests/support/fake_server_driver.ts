/**
 * Drives a real provider CLI against a fake server for recordings and end-to-end checks: spawns it detached (its
 * own process group, stdin closed), timestamps every stdout line, interrupts its group on a readiness rule, and
 * finds its descendants through `/proc` so that tests can prove no tool process was orphaned.
 */

/** One stdout line with the milliseconds since spawn at which it arrived. */
export interface TimedLine {
  t: number;
  line: string;
}

/** When and how to interrupt a running CLI. */
export interface InterruptPlan {
  signal: Deno.Signal;
  /** Called on every stdout line; resolve the returned promise to fire (null: not yet). */
  trigger(line: string, ctx: DriveContext): Promise<void> | null;
}

/** What an interrupt trigger can inspect. */
export interface DriveContext {
  pid: number;
  /** Milliseconds since spawn. */
  elapsed(): number;
}

/** Result of {@link driveCli}. */
export interface DriveResult {
  code: number;
  signal: Deno.Signal | null;
  stdout: string;
  stderr: string;
  lines: TimedLine[];
  durationMs: number;
  /** Set when an interrupt fired. */
  interrupt: { signal: Deno.Signal; atMs: number; afterLine: number; descendants: ProcInfo[] } | null;
  /** Descendants recorded at interrupt time that were still alive after the CLI exited. */
  orphans: ProcInfo[];
}

/** A process seen in `/proc`. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  comm: string;
  startTicks: number;
}

/** Parse `/proc/<pid>/stat`, or null when the process is gone. */
export function readProcStat(pid: number): ProcInfo | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
  const close = text.lastIndexOf(")");
  const comm = text.slice(text.indexOf("(") + 1, close);
  const rest = text.slice(close + 2).split(" ");
  // rest[0] is state (field 3); ppid is field 4, pgrp field 5, starttime field 22.
  return {
    pid,
    ppid: Number(rest[1]),
    pgid: Number(rest[2]),
    comm,
    startTicks: Number(rest[19]),
  };
}

/** Every live descendant of `root` (children, grandchildren, …), found through parent links in `/proc`. */
export function descendants(root: number): ProcInfo[] {
  const all: ProcInfo[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const info = readProcStat(Number(e.name));
    if (info) all.push(info);
  }
  const out: ProcInfo[] = [];
  const frontier = [root];
  while (frontier.length) {
    const p = frontier.pop()!;
    for (const c of all) {
      if (c.ppid === p) {
        out.push(c);
        frontier.push(c.pid);
      }
    }
  }
  return out;
}

/** Those of `procs` still alive with the same start time (pid not reused). */
export function stillAlive(procs: ProcInfo[]): ProcInfo[] {
  return procs.filter((p) => {
    const now = readProcStat(p.pid);
    return now !== null && now.startTicks === p.startTicks && !isZombie(p.pid);
  });
}

function isZombie(pid: number): boolean {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return text.slice(text.lastIndexOf(")") + 2, text.lastIndexOf(")") + 3) === "Z";
  } catch {
    return true;
  }
}

/** Kill the given processes (SIGKILL), ignoring those already gone. */
export function killAll(procs: ProcInfo[]): void {
  for (const p of procs) {
    try {
      Deno.kill(p.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Poll until a descendant of `root` whose comm matches exists, or the timeout passes. */
export async function waitForDescendant(root: number, comm: RegExp, timeoutMs = 10_000): Promise<ProcInfo | null> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const hit = descendants(root).find((p) => comm.test(p.comm));
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 25));
  }
  return null;
}

/** Options for {@link driveCli}. */
export interface DriveOptions {
  cwd: string;
  env: Record<string, string>;
  interrupt?: InterruptPlan;
  /** Hard limit; the group gets SIGKILL after it (default 60 s). */
  timeoutMs?: number;
}

/** Spawn `bin args…` detached with stdin closed and a clean environment, and collect its output. */
export async function driveCli(bin: string, args: string[], opts: DriveOptions): Promise<DriveResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const child = new Deno.Command(bin, {
    args,
    cwd: opts.cwd,
    env: opts.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  const pid = child.pid;
  const lines: TimedLine[] = [];
  let interrupt: DriveResult["interrupt"] = null;
  let firing: Promise<void> | null = null;
  const hardStop = setTimeout(() => {
    try {
      Deno.kill(-pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }, opts.timeoutMs ?? 60_000);

  const stderrText = new Response(child.stderr).text();
  const dec = new TextDecoder();
  let buf = "";
  let stdout = "";
  const ctx: DriveContext = { pid, elapsed };
  const onLine = (line: string) => {
    lines.push({ t: elapsed(), line });
    if (opts.interrupt && !firing) {
      const plan = opts.interrupt;
      const p = plan.trigger(line, ctx);
      if (p) {
        const afterLine = lines.length;
        firing = p.then(() => {
          const desc = descendants(pid);
          interrupt = { signal: plan.signal, atMs: elapsed(), afterLine, descendants: desc };
          try {
            Deno.kill(-pid, plan.signal);
          } catch {
            // Already exited.
          }
        });
      }
    }
  };
  for await (const chunk of child.stdout) {
    const text = dec.decode(chunk, { stream: true });
    stdout += text;
    buf += text;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      onLine(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  }
  if (buf) onLine(buf);
  const status = await child.status;
  clearTimeout(hardStop);
  if (firing) await firing;
  const stderr = await stderrText;
  // Give reparented children a moment to be reaped or to show up as survivors.
  await new Promise((r) => setTimeout(r, 200));
  const recorded: ProcInfo[] = (interrupt as DriveResult["interrupt"])?.descendants ?? [];
  const orphans = stillAlive(recorded);
  return {
    code: status.code,
    signal: status.signal,
    stdout,
    stderr,
    lines,
    durationMs: elapsed(),
    interrupt,
    orphans,
  };
}

/** Readiness + delay: fire `delayMs` after the first line matching `pred`. */
export function afterLine(pred: (obj: Record<string, unknown>) => boolean, delayMs: number) {
  return (line: string): Promise<void> | null => {
    let obj: Record<string, unknown>;
    try {
      obj = JSON.parse(line);
    } catch {
      return null;
    }
    return pred(obj) ? new Promise((r) => setTimeout(r, delayMs)) : null;
  };
}
