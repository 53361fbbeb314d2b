/**
 * No command ever stops at a Deno permission prompt (issue #15): every command of the registry runs in a
 * pseudo-terminal, launched as the README says (`deno run -A main.ts`), with arguments that make it do its real work
 * on a simulated packet — the `control` writers against a live run — and none may print Deno's "requests … access"
 * question. main.ts revokes what a command does not declare, so an access outside its set would ask there.
 */
import assert from "node:assert/strict";
import { COMMANDS, findCommand } from "../../src/cli/registry.ts";
import { tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import {
  hasScript,
  permissionPrompt,
  runInTerminal,
  type TerminalOptions,
  type TerminalResult,
} from "../support/terminal.ts";
import { makePacket, promptFile, readSnapshot } from "../run/support.ts";
import { workspaceFixture } from "../workspace/fixture.ts";
import { AGENT_ENV } from "../../src/store/agent_records.ts";

/** A step that keeps a session live for about 30 s (the run is stopped long before). */
const SLOW = `{delay_ms: 500, messages: [${Array.from({ length: 60 }, (_, i) => `m${i}`).join(", ")}]}`;

/** 01 is quick; 02's first attempt and its steered turn stream until the run is stopped (its second attempt is quick); 03 fails until repaired. */
const PROMPTS = {
  "01_a.prompt.md": promptFile(
    "1",
    "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}]",
  ),
  "02_b.prompt.md": promptFile(
    "2",
    `verify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - ${SLOW}\n    - writes: [{path: b.txt}]\n` +
      `  steer: ${SLOW}`,
  ),
  "03_c.prompt.md": promptFile(
    "3",
    "verify:\n  files_exist: [c.txt]\nrecovery:\n  retry: {attempts: 0}\n  repair: {enabled: false}\nsimulate:\n" +
      "  attempts:\n    - messages: [not yet]\n    - writes: [{path: c.txt}]",
  ),
};

interface Step {
  args: string[];
  /** Exit codes that mean the command did its work. */
  codes: number[];
  cwd?: string;
  env?: Record<string, string>;
  interact?: TerminalOptions["interact"];
}

const seen = new Set<string>();

/** What went wrong, per command (all of them are reported, not only the first). */
const problems: string[] = [];

async function check(step: Step): Promise<TerminalResult> {
  seen.add(findCommand(step.args)?.entry.path.join(" ") ?? step.args[0]!);
  const r = await runInTerminal(step.args, {
    ...(step.cwd ? { cwd: step.cwd } : {}),
    ...(step.env ? { env: step.env } : {}),
    ...(step.interact ? { interact: step.interact } : {}),
  });
  const line = `prompt_runner ${step.args.join(" ")}`;
  const asked = permissionPrompt(r.output);
  if (asked !== null) problems.push(`${line} stopped at a permission prompt: ${asked}`);
  else if (r.stopped) problems.push(`${line} did not end:\n${r.output}`);
  else if (!step.codes.includes(r.code)) problems.push(`${line} exited ${r.code}:\n${r.output}`);
  return r;
}

Deno.test({
  name: "every command runs in a terminal without a Deno permission prompt",
  ignore: !hasScript(),
  fn: async () => {
    await using dir = await tempDir();
    const pkt = await makePacket(dir.path, PROMPTS);
    // The static commands work on a packet of their own, so they run while the live run below starts.
    const quiet = await makePacket(`${dir.path}/quiet`, PROMPTS);
    const ws = await workspaceFixture(`${dir.path}/ws`);
    await Deno.mkdir(`${dir.path}/agent`);
    const agentEnv = {
      [AGENT_ENV.dir]: `${dir.path}/agent`,
      [AGENT_ENV.token]: "tok-1",
      [AGENT_ENV.runId]: "20261201T120000Z-ABCDEF",
      [AGENT_ENV.promptId]: "02",
      [AGENT_ENV.iteration]: "1",
    };

    // The readers, the static checks and the scaffolding, in parallel (awaited at the end).
    const statics = Promise.all([
      check({ args: ["plan", quiet], codes: [0] }),
      check({ args: ["list", quiet], codes: [0] }),
      check({ args: ["packet", "lint", quiet], codes: [0] }),
      check({ args: ["packet", "preflight", quiet], codes: [0] }),
      check({ args: ["packet", "doctor", quiet], codes: [0] }),
      check({ args: ["checklist", "sync", quiet], codes: [0] }),
      check({ args: ["verify", quiet, "01"], codes: [1] }),
      check({ args: ["completions", "bash"], codes: [0] }),
      check({ args: ["capabilities"], codes: [0] }),
      (async () => {
        // The setup and authoring commands, against a config home of the test's own.
        const env = { XDG_CONFIG_HOME: `${dir.path}/xdg`, HOME: `${dir.path}/home`, PROMPT_RUNNER_CONFIG_HOME: "" };
        const made = `${dir.path}/made`;
        await check({ args: ["init"], codes: [0], env });
        await check({ args: ["profile", "new", "mine", "--provider", "simulated", "--model", "m"], codes: [0], env });
        await check({ args: ["packet", "new", made, "--profile", "mine"], codes: [0], env });
        await check({ args: ["prompt", "new", "1", "--packet", made, "--contains", "a.txt=A"], codes: [0], env });
        await Promise.all([
          check({ args: ["profile", "list"], codes: [0], env }),
          check({ args: ["template", "list", made], codes: [0], env }),
          check({ args: ["packet", "explain", made], codes: [0], env }),
        ]);
      })(),
      check({
        args: ["agent-control", "progress", "--cursor", "c1", "--summary", "working"],
        codes: [0],
        env: agentEnv,
      }),
      (async () => {
        await check({ args: ["workspace", "plan", ws.manifest], codes: [0], env: ws.env });
        await check({ args: ["workspace", "prepare", ws.manifest], codes: [0], env: ws.env });
        await check({ args: ["workspace", "doctor", "op-ws"], codes: [0], env: ws.env });
        await Deno.writeTextFile(`${dir.path}/legacy.log`, "01:completed:2026-08-10T02:00:00Z\n");
        await check({
          args: ["workspace", "import-state", "op-ws", "--source", `${dir.path}/legacy.log`],
          codes: [0],
          env: ws.env,
        });
        await check({ args: ["workspace", "status", "op-ws"], codes: [0], env: ws.env });
        await check({ args: ["workspace", "list"], codes: [0], env: ws.env });
        // Workspace targets resolve through the registry under $XDG_DATA_HOME in every permission set.
        await Promise.all([
          check({ args: ["plan", "op-ws"], codes: [0], env: ws.env }),
          check({ args: ["status", "op-ws"], codes: [0], env: ws.env }),
          check({ args: ["control", "status", "op-ws"], codes: [0, 4], env: ws.env }),
          check({ args: ["control", "view", "op-ws", "--log-mode", "verbose"], codes: [4], env: ws.env }),
          check({ args: ["control", "steer", "op-ws", "--", "hello"], codes: [4], env: ws.env }),
        ]);
      })(),
    ]);

    // A live run: started in the background, then every reader and writer of the control plane against it.
    await check({ args: ["start", pkt], codes: [0] });
    await waitFor(async () => {
      const s = await readSnapshot(pkt);
      return s?.session_live === true && s.prompt_id === "02";
    }, { timeoutMs: 60_000, what: "prompt 02's session to be live" });
    await Promise.all([
      check({ args: ["status", pkt], codes: [0] }),
      check({ args: ["watch", pkt, "--once"], codes: [0] }),
      check({ args: ["control", "status", pkt], codes: [0] }),
      check({ args: ["control", "events", pkt, "--no-follow"], codes: [0] }),
      check({ args: ["control", "log", pkt], codes: [0] }),
      check({ args: ["control", "contract", pkt, "02"], codes: [0] }),
      check({ args: ["control", "view", pkt, "--log-mode", "verbose"], codes: [0] }),
      check({ args: ["control", "steer", pkt, "--wait", "--", "look at b.txt first"], codes: [0] }),
      check({ args: ["control", "amend", pkt, "03", "--add-file", "a.txt", "--reason", "needs a"], codes: [0] }),
      check({ args: ["replay", pkt], codes: [0] }),
    ]);
    await check({
      args: [
        "control",
        "relax",
        pkt,
        "03",
        "--remove",
        "files_exist",
        "--entry",
        "a.txt",
        "--reason",
        "not needed",
        "--confirm",
      ],
      codes: [0],
    });
    // control serve: answers the API with the token it printed, then Ctrl-C (exit 130).
    let served: unknown = null;
    await check({
      args: ["control", "serve", pkt],
      codes: [130],
      interact: {
        ready: /Token \(role amend[^\n]*: (\S+)\n/,
        then: async (out) => {
          const url = /Serving .* at (\S+)\n/.exec(out)![1]!;
          const token = /Token \(role amend[^\n]*: (\S+)\n/.exec(out)![1]!;
          const res = await fetch(new URL("api/v1/targets", url), { headers: { authorization: `Bearer ${token}` } });
          served = await res.json();
          assert.equal(res.status, 200, JSON.stringify(served));
        },
      },
    });
    assert.ok(Array.isArray((served as { targets?: unknown[] } | null)?.targets), JSON.stringify(served));
    await check({ args: ["stop", pkt], codes: [0] });

    // In the foreground: prompt 03 (it fails), then its repair.
    await check({ args: ["run", pkt, "03"], codes: [1] });
    await check({ args: ["repair", pkt, "03"], codes: [0] });
    await statics;

    assert.deepEqual(problems, [], problems.join("\n"));
    const missing = COMMANDS.map((c) => c.path.join(" ")).filter((p) => !seen.has(p));
    assert.deepEqual(missing, [], "every registered command ran in a terminal");
  },
});
