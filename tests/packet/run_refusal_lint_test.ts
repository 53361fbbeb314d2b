/** The lint rules behind the run-time gate: `unknown_simulate_key`, `contract_without_items`, the refusal filter. */
import assert from "node:assert/strict";
import { lintSimulate } from "../../src/packet/simulate_lint.ts";
import { lintPacket } from "../../src/contract/packet_lint.ts";
import { refusalLine, refusals, RUN_REFUSALS } from "../../src/run/lint_gate.ts";
import type { Finding } from "../../src/packet/types.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, writePacket } from "./_packet.ts";

const at = { id: "01", relFile: "prompts/01_a.prompt.md" };

Deno.test("lintSimulate() names every unknown key with its path and a did-you-mean; a correct script is clean", () => {
  const keys = (simulate: Record<string, unknown>) => lintSimulate({ ...at, simulate }).map((f) => f.key);
  assert.deepEqual(
    keys({
      session: { resumable: false },
      attempts: [
        {
          label: "x",
          delay_ms: 0,
          writes: [{ path: "a", text: "b", append: true, repo: "app" }],
          thinking: ["t"],
          messages: ["m"],
          tools: [{ name: "Edit", input: {}, output: "", is_error: false, delay_ms: 1, writes: [] }],
          usage: { input_tokens: 1, output_tokens: 2, cost_usd: 0 },
          error: { kind: "k", message: "m", stderr: "", recovery: { "retryable?": true, class: "c" } },
        },
        { events: [{ message: "m" }, { tool: { name: "x" } }, { write: { path: "a" } }, { wait_ms: 1 }] },
      ],
      resume: { messages: ["r"] },
      steer: [{ messages: ["s"] }],
    }),
    [],
  );
  assert.deepEqual(
    keys({
      atempts: [],
      session: { resumeable: true },
      attempts: [
        { write: [] },
        {
          writes: [{ pth: "a" }],
          tools: [{ nme: "x", writes: [{ txt: "" }] }],
          error: { knd: "x", recovery: { x: 1 } },
        },
        { events: [{ mesage: "m" }, { tool: { inpt: {} } }] },
      ],
      resume: { mesages: [] },
    }),
    [
      "simulate.atempts",
      "simulate.session.resumeable",
      "simulate.attempts[1].write",
      "simulate.attempts[2].writes[1].pth",
      "simulate.attempts[2].tools[1].nme",
      "simulate.attempts[2].tools[1].writes[1].txt",
      "simulate.attempts[2].error.knd",
      "simulate.attempts[2].error.recovery.x",
      "simulate.attempts[3].events[1].mesage",
      "simulate.attempts[3].events[2].tool.inpt",
      "simulate.resume.mesages",
    ],
  );
  const [f] = lintSimulate({ ...at, simulate: { attempts: [{ writes: [{ pth: "a" }] }] } });
  assert.equal(f?.severity, "error");
  assert.match(
    f!.message,
    /^prompts\/01_a\.prompt\.md: simulate\.attempts\[1\]\.writes\[1\]\.pth is not a simulate key; did you mean "path"\?$/,
  );
});

Deno.test("packet lint: a written verify: with no evaluable item is an error; an absent one stays a warning", async () => {
  await using dir = await tempDir();
  await writePacket(dir.path, "name: p\n", {
    "01_a.prompt.md": promptText("id: 1\nverify: {}\n"),
    "02_b.prompt.md": promptText("id: 2\nverify:\n  files_exist: []\n"),
    "03_c.prompt.md": promptText("id: 3\n"),
    "04_d.prompt.md": promptText("id: 4\nverify: {}\nvalidation: [make test]\n"),
    "05_e.prompt.md": promptText("id: 5\nverify:\n  files_exist: [a]\nfrobnicate: 1\n"),
  });
  const r = await lintPacket(dir.path);
  const of = (id: string) => r.findings.filter((f) => f.prompt_id === id).map((f) => `${f.severity}:${f.kind}`);
  assert.deepEqual(of("01"), ["error:contract_without_items"]);
  assert.deepEqual(of("02"), ["error:contract_without_items"]);
  assert.deepEqual(of("03"), ["warning:prompt_without_verify"]);
  assert.ok(!of("04").some((k) => k.endsWith("contract_without_items")), "legacy commands are items");
  assert.ok(of("05").includes("warning:unknown_front_matter_key"));
});

Deno.test("refusals(): the refusal set without --strict, every finding with it; unselected prompts never refuse", () => {
  const f = (kind: string, severity: Finding["severity"], prompt_id: string | null): Finding => ({
    kind,
    severity,
    prompt_id,
    file: prompt_id ? `prompts/${prompt_id}.prompt.md` : "prompt_runner_packet.md",
    key: "k",
    message: "m",
  });
  const all = [
    f("unknown_verify_clause", "error", "01"),
    f("prompt_id_filename_mismatch", "error", "01"),
    f("unknown_simulate_key", "error", "02"),
    f("unknown_manifest_key", "error", null),
  ];
  assert.deepEqual(refusals(all, new Set(["01"]), false).map((x) => x.kind), ["unknown_verify_clause"]);
  assert.deepEqual(refusals(all, new Set(["01"]), true).map((x) => x.kind), [
    "unknown_verify_clause",
    "prompt_id_filename_mismatch",
    "unknown_manifest_key",
  ]);
  assert.ok(RUN_REFUSALS.has("contract_without_items") && !RUN_REFUSALS.has("prompt_without_verify"));
  assert.equal(refusalLine({ ...all[0]!, message: "prompts/01.prompt.md: bad" }), "prompts/01.prompt.md: k: bad");
  assert.equal(refusalLine({ ...all[0]!, message: "k is bad" }), "prompts/01.prompt.md: k is bad");
});
