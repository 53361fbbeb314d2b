/**
 * `run` on a real pseudo-terminal (`script`): the live status line (docs/status.md) is drawn while the demo packet
 * runs and is gone from the final screen, which holds the stream and the runner's lines intact (replayed on the
 * terminal model of tests/support/vt.ts); `NO_COLOR` and `--no-status-line` turn it off.
 */
import assert from "node:assert/strict";
import { setupExample } from "../../examples/setup.ts";
import { childEnv, MAIN, permissionFlags, ROOT } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { Vt } from "../support/vt.ts";

const COLUMNS = 100;

/** A POSIX shell word. */
function word(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** Run the CLI on a pseudo-terminal of {@link COLUMNS} columns; returns what the terminal received. */
async function onTty(args: string[], env: Record<string, string>): Promise<{ code: number; raw: string }> {
  const cli = [Deno.execPath(), "run", "--quiet", "--no-prompt", ...permissionFlags(args), MAIN, ...args];
  const line = `stty cols ${COLUMNS} rows 40; exec ${cli.map(word).join(" ")}`;
  const out = await new Deno.Command("script", {
    args: ["-qfec", line, "/dev/null"],
    cwd: ROOT,
    clearEnv: true,
    env: childEnv({ TERM: "xterm-256color", ...env }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, raw: new TextDecoder().decode(out.stdout) };
}

const STATUS = /prompt \d\/3 0\d · attempt \d \((run|retry)\) · \S+/;

Deno.test("run on a terminal draws the status line below the stream and leaves only the stream", async () => {
  await using dir = await tempDir();
  const packet = await setupExample("demo", dir.path);
  const r = await onTty(["run", packet], { NO_COLOR: "" });
  assert.equal(r.code, 0, r.raw);
  assert.match(r.raw, STATUS);
  assert.match(r.raw, /prompt 3\/3 03 · attempt 2 \(retry\)/);
  const vt = new Vt(COLUMNS);
  vt.write(r.raw);
  const screen = vt.lines();
  assert.ok(!screen.some((l) => /· last event|no events yet/.test(l)), screen.join("\n"));
  for (const id of ["01", "02", "03"]) assert.ok(screen.includes(`✓ Prompt ${id} completed`), screen.join("\n"));
  assert.ok(screen.some((l) => /^Retrying prompt 03 after provider_capacity/.test(l)), screen.join("\n"));
  assert.ok(screen.some((l) => /^ {2}Prompt 02: Write the guide {2}· attempt 1 \(run\)$/.test(l)), screen.join("\n"));
});

Deno.test("NO_COLOR and --no-status-line turn the status line off on a terminal", async () => {
  await using dir = await tempDir();
  const packet = await setupExample("demo", dir.path);
  const plain = await onTty(["run", packet, "03", "--new-run"], { NO_COLOR: "1" });
  assert.equal(plain.code, 0, plain.raw);
  assert.ok(!STATUS.test(plain.raw), plain.raw);
  assert.match(plain.raw, /✓ Prompt 03 completed/);
  const off = await onTty(["run", packet, "03", "--new-run", "--no-status-line"], { NO_COLOR: "" });
  assert.equal(off.code, 0, off.raw);
  assert.ok(!STATUS.test(off.raw), off.raw);
  assert.match(off.raw, /✓ Prompt 03 completed/);
});
