/**
 * Untrusted text never drives the terminal (docs/rendering.md, "Untrusted text"): a packet whose names, title and
 * file names carry escape sequences, BEL, CR and newlines, played by a simulated agent whose messages, thinking, tool
 * calls and errors carry them too. Every human command prints it with colour off, so any control character in its
 * output other than newline and tab (an ESC above all) came from the packet or the agent.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, manifest } from "../run/support.ts";

// Control characters a terminal acts on: C0 but newline and tab, DEL, C1 (CSI 0x9b among them).
// deno-lint-ignore no-control-regex
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** The first raw control character of `text` with its surroundings, or null when there is none. */
function rawControl(text: string): string | null {
  const m = RAW_CONTROL.exec(text);
  if (!m) return null;
  return JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 40));
}

// A name that clears the screen, sets the window title and rings the bell (YAML double-quoted escapes).
const HOSTILE_NAME = String.raw`X\e[2J\e]0;PWNED\aY`;
const SHOWN_NAME = String.raw`X\x1b[2J\x1b]0;PWNED\x07Y`;

function hostilePrompt(id: string, steps: string): string {
  return `---\nid: "${id}"\nname: "${HOSTILE_NAME}"\ncommit: "feat: ${id}"\nsimulate:\n${steps}---\n` +
    `# Title \x1b[2J\r here\n\nDo it.\n`;
}

const AGENT = `  attempts:
    - messages: ["Cr\\e[2Jeating\\nline two\\ttab\\rCR\\a"]
      thinking: ["think\\e[31m\\u009b2J"]
      tools:
        - name: "Bash\\e[2J"
          input: { command: "echo \\e]0;T\\a" }
          output: "out\\e]0;T\\a\\nmore\\e[2J"
`;
const FAILING = `  attempts:
    - messages: ["hi"]
      error: { kind: runtime_error, message: "boom\\e[2J\\a" }
`;

async function hostilePacket(root: string): Promise<string> {
  const dir = await makePacket(root, {
    "01_x.prompt.md": hostilePrompt("01", AGENT),
    "02_\x1b[31mred\x07.prompt.md": hostilePrompt("02", FAILING),
    "03_a\nb.prompt.md": hostilePrompt("03", "  attempts: []\n"),
  });
  await Deno.writeTextFile(
    `${dir}/prompt_runner_packet.md`,
    manifest().replace("name: scenario", String.raw`name: "P\e[2JKT\a"`),
  );
  return dir;
}

Deno.test("no human command writes a control character from packet or agent text", async () => {
  await using root = await tempDir();
  const dir = await hostilePacket(root.path);
  const outputs: Record<string, string> = {};
  const raws: string[] = [];
  const human = async (args: string[]) => {
    const r = await runCli(args);
    const out = r.stdout + r.stderr;
    outputs[args.slice(0, -1).join(" ")] = out;
    const raw = rawControl(out);
    if (raw !== null) raws.push(`${args.slice(0, -1).join(" ")} wrote a raw control character: ${raw}`);
    return r;
  };
  for (const args of [["list"], ["plan"], ["packet", "explain"], ["packet", "lint"], ["status"]]) {
    await human([...args, dir]);
  }
  const run = await human(["run", dir]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  for (const args of [["status"], ["status", "--summary"], ["control", "status"]]) await human([...args, dir]);
  for (const mode of ["compact", "verbose", "studio"]) await human(["replay", "--log-mode", mode, dir]);
  await human(["checklist", "sync", dir]);
  assert.deepEqual(raws, []);

  // The text is still there, escaped: the name, the packet, single-line file names with their newline, agent text
  // with its newline and tab kept.
  for (const cmd of ["list", "plan", "packet explain", "status --summary", "control status"]) {
    assert.ok(outputs[cmd]!.includes(SHOWN_NAME), `${cmd}: ${outputs[cmd]}`);
  }
  assert.ok(outputs["packet explain"]!.includes(String.raw`Packet P\x1b[2JKT\x07`), outputs["packet explain"]);
  for (const cmd of ["packet lint", "packet explain", "run", "checklist sync"]) {
    assert.ok(outputs[cmd]!.includes(String.raw`03_a\x0ab.prompt`), `${cmd}: ${outputs[cmd]}`);
    assert.ok(outputs[cmd]!.includes(String.raw`02_\x1b[31mred\x07.prompt`), `${cmd}: ${outputs[cmd]}`);
  }
  assert.ok(outputs.run!.includes(String.raw`Cr\x1b[2Jeating` + "\nline two\ttab" + String.raw`\x0dCR\x07`));
  assert.ok(outputs.run!.includes(String.raw`boom\x1b[2J\x07`), outputs.run);
  assert.ok(outputs.run!.includes(String.raw`# Title \x1b[2J\x0d here`), outputs.run);
});
