/**
 * The demo script (`deno task demo`, `deno task demo:slow`): it leaves no temp dir behind unless `--keep`, every
 * command it prints runs as printed, and the slow demo can be steered with the command it prints.
 */
import assert from "node:assert/strict";
import { demoOptions, SLOW_PACE } from "../../scripts/demo.ts";
import { paceScript } from "../../examples/setup.ts";
import { childEnv, ROOT } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";

const DEMO = `${ROOT}/scripts/demo.ts`;

function demo(args: string[], tmp: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", DEMO, ...args],
    cwd: ROOT,
    clearEnv: true,
    env: childEnv({ TMPDIR: tmp }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Collect a child's stdout as it arrives. */
function collect(stream: ReadableStream<Uint8Array>): { text: () => string; done: Promise<void> } {
  let buf = "";
  const done = stream.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write(chunk) {
        buf += chunk;
      },
    }),
  );
  return { text: () => buf, done };
}

async function bash(line: string): Promise<{ code: number; out: string; err: string }> {
  const out = await new Deno.Command("bash", {
    args: ["-c", line],
    cwd: "/",
    clearEnv: true,
    env: childEnv({ PATH: `${Deno.execPath().replace(/\/[^/]*$/, "")}:${Deno.env.get("PATH") ?? ""}` }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, out: dec.decode(out.stdout), err: dec.decode(out.stderr) };
}

function entries(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name);
}

Deno.test("demo options: --slow runs the demo packet slowly, --keep keeps it, other flags go to run", () => {
  assert.deepEqual(demoOptions([]), { name: "recovery", slow: false, keep: false, runFlags: [] });
  assert.deepEqual(demoOptions(["--slow", "--keep", "--log-mode=verbose"]), {
    name: "demo",
    slow: true,
    keep: true,
    runFlags: ["--log-mode=verbose"],
  });
  assert.equal(demoOptions(["--packet=demo"]).name, "demo");
  const tasks = JSON.parse(Deno.readTextFileSync(`${ROOT}/deno.json`)).tasks as Record<string, string>;
  assert.match(tasks["demo:slow"]!, /scripts\/demo\.ts --slow$/);
});

Deno.test("paceScript() multiplies every delay_ms of a simulate script and nothing else", () => {
  const text = "simulate:\n  attempts:\n    - delay_ms: 400\n      tools:\n        - {name: Write, delay_ms: 800}\n" +
    "timeout_ms: 1000\n";
  assert.equal(
    paceScript(text, SLOW_PACE),
    "simulate:\n  attempts:\n    - delay_ms: 4800\n      tools:\n        - {name: Write, delay_ms: 9600}\n" +
      "timeout_ms: 1000\n",
  );
  assert.equal(paceScript(text, 1), text);
});

Deno.test("deno task demo removes its temp dir; with --keep it stays and every printed command runs", async () => {
  await using tmp = await tempDir();
  const plain = await demo([], tmp.path).output();
  const out = new TextDecoder().decode(plain.stdout);
  assert.equal(plain.code, 0, out + new TextDecoder().decode(plain.stderr));
  assert.match(out, /recovery finished with exit 0\.\nRemoved \S+ \(--keep keeps it\)\.\n$/);
  assert.deepEqual(entries(tmp.path), [], "no temp dir left behind");

  const kept = await demo(["--keep"], tmp.path).output();
  const keptOut = new TextDecoder().decode(kept.stdout);
  assert.equal(kept.code, 0, keptOut);
  assert.equal(entries(tmp.path).length, 1, "--keep keeps the temp dir");
  assert.doesNotMatch(keptOut, /prompt_runner status/, "no command that is not on PATH");
  const commands = keptOut.split("\n").filter((l) => /^ {2}(deno run -A|git -C) /.test(l)).map((l) => l.trim());
  assert.equal(commands.length, 3, keptOut);
  for (const c of commands) {
    const r = await bash(c);
    assert.equal(r.code, 0, `${c}\n${r.out}\n${r.err}`);
  }
  const rm = /^Remove it with: (rm -rf .+)$/m.exec(keptOut);
  assert.ok(rm, keptOut);
  assert.equal((await bash(rm[1]!)).code, 0);
  assert.deepEqual(entries(tmp.path), []);
});

Deno.test("deno task demo:slow prints a steer command that steers it; Ctrl-C ends it and removes the temp dir", async () => {
  await using tmp = await tempDir();
  const child = demo(["--slow"], tmp.path);
  const out = collect(child.stdout);
  const err = collect(child.stderr);
  try {
    const steerLine = await waitFor(() => /^ {2}(deno run -A \S+ control steer \S+ --) (.*)$/m.exec(out.text()), {
      what: "the printed steer command",
    });
    const dir = /^ {2}deno run -A \S+ control status (\S+)$/m.exec(out.text())![1]!;
    await waitFor(async () => {
      try {
        return JSON.parse(await Deno.readTextFile(`${dir}/.prompt_runner/control/snapshot.json`)).session_live === true;
      } catch {
        return false;
      }
    }, { what: "a live session" });
    const steer = await bash(steerLine[0]!.trim());
    assert.equal(steer.code, 0, steer.out + steer.err);
    await waitFor(() => out.text().includes("↳ steer accepted: keep the greeting short"), {
      what: "the steer accepted",
    });
  } finally {
    child.kill("SIGINT");
  }
  const status = await child.status;
  await out.done;
  await err.done;
  assert.equal(status.code, 130, out.text() + err.text());
  assert.match(out.text(), /Removed \S+ \(--keep keeps it\)\./);
  assert.deepEqual(entries(tmp.path), [], "Ctrl-C still removes the temp dir");
});
