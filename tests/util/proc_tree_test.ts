import assert from "node:assert/strict";
import { waitFor } from "../support/wait.ts";
import { descendantsOf, parseProcStat, processIdentity, type ProcStat } from "../../src/util/proc_tree.ts";

Deno.test("parseProcStat() reads pid, ppid, pgid, sid and start ticks past a command name with spaces and parens", () => {
  const text = "4242 (we ird) (name)) S 4000 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100\n";
  assert.deepEqual(parseProcStat(text), {
    pid: 4242,
    ppid: 4000,
    pgid: 4242,
    sid: 4242,
    state: "S",
    startTicks: 987654,
  });
  assert.equal(parseProcStat("garbage"), null);
});

Deno.test("descendantsOf() follows parent links and adds other members of the group", () => {
  const p = (pid: number, ppid: number, pgid: number): ProcStat => ({
    pid,
    ppid,
    pgid,
    sid: pgid,
    state: "S",
    startTicks: pid * 10,
  });
  const procs = [p(1, 0, 1), p(10, 1, 10), p(11, 10, 10), p(12, 11, 12), p(13, 1, 10), p(20, 1, 20)];
  const pids = descendantsOf(10, 10, procs).map((x) => x.pid).sort((a, b) => a - b);
  // 11 and 12 by parent links (12 left the group), 13 reparented but still in group 10; 20 unrelated.
  assert.deepEqual(pids, [11, 12, 13]);
  assert.deepEqual(descendantsOf(10, null, procs).map((x) => x.pid).sort((a, b) => a - b), [11, 12]);
});

Deno.test("processIdentity() reports this process's group and start ticks", () => {
  const id = processIdentity(Deno.pid);
  assert.equal(id.pid, Deno.pid);
  assert.ok(Number.isInteger(id.pgid));
  assert.ok(id.start_ticks !== null && id.start_ticks > 0);
});

Deno.test("listProcesses() and readProcStat() work under scoped permissions (no --allow-all) through cat", async () => {
  const mod = new URL("../../src/util/proc_tree.ts", import.meta.url).href;
  const dir = await Deno.makeTempDir({ prefix: "pr-proc-" });
  try {
    const script = `${dir}/probe.ts`;
    await Deno.writeTextFile(
      script,
      `import { listProcesses, readProcStat } from ${JSON.stringify(mod)};
let direct = "allowed";
try { Deno.readTextFileSync("/proc/self/stat"); } catch (e) { direct = e.constructor.name; }
const me = readProcStat(Deno.pid);
console.log(JSON.stringify({ direct, count: listProcesses().length, pid: me?.pid ?? null, ticks: me?.startTicks ?? null }));`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-prompt", "--allow-read", "--allow-run", script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const r = JSON.parse(text);
    assert.equal(r.direct, "NotCapable");
    assert.ok(r.count > 1);
    assert.ok(r.ticks > 0);
    assert.notEqual(r.pid, null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readProcCmdline() returns a live process's command line and null for a gone one", async () => {
  const child = new Deno.Command("sleep", { args: ["5.123"], stdout: "null", stderr: "null" }).spawn();
  try {
    const { readProcCmdline } = await import("../../src/util/proc_tree.ts");
    // Right after spawn the child may not have exec'd yet (an empty or the parent's command line): wait for it.
    const line = await waitFor(() => {
      const text = readProcCmdline(child.pid);
      return text !== null && /sleep 5\.123$/.test(text) ? text : null;
    });
    assert.match(line, /sleep 5\.123$/);
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
  const { readProcCmdline } = await import("../../src/util/proc_tree.ts");
  assert.equal(readProcCmdline(child.pid), null);
});
