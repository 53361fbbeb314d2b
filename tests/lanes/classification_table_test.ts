/**
 * The same fault gets the same failure class on every lane (issue #11 item 5): each lane's recorded form of an HTTP
 * 400/401/403/404/413/429/500/529 and of a lost transport is replayed by a fake CLI, and the stream's end is
 * classified as the runner classifies it. Recorded captures are used where they exist (claude 400/429/500, codex
 * 400/429/500); the other statuses are the same recorded lines with the status and API error type substituted.
 */
import assert from "node:assert/strict";
import { claudeLane } from "../../src/lanes/claude.ts";
import { codexLane } from "../../src/lanes/codex.ts";
import type { Lane } from "../../src/lanes/types.ts";
import { classifyStreamEnd } from "../../src/run/classify.ts";
import { ERROR_TYPES } from "../support/fake_anthropic.ts";
import { tempDir } from "../support/fs.ts";
import { drain, fixtureLines, fixtureMeta, startWithCli, writeReplayCli } from "./_support.ts";

/** The API error type each status carries in the providers' error documents. */
const TYPES = ERROR_TYPES;

/** One fault as every lane must classify it. */
const EXPECTED: [string, string][] = [
  ["400", "provider_config_claim"],
  ["401", "provider_auth_claim"],
  ["403", "provider_auth_claim"],
  ["404", "provider_config_claim"],
  ["413", "provider_config_claim"],
  ["429", "provider_rate_limit"],
  ["500", "provider_capacity"],
  ["529", "provider_capacity"],
  ["transport_loss", "transport_disconnect"],
];

interface Form {
  lines: string[];
  exitCode: number;
  stderr?: string;
}

function substituted(lines: string[], status: number): string[] {
  return lines.map((l) => l.replaceAll("400", String(status)).replaceAll("invalid_request_error", TYPES[status]!));
}

function recorded(lane: string, name: string): Form {
  const meta = fixtureMeta(lane, name);
  return { lines: fixtureLines(lane, name), exitCode: typeof meta.exit_code === "number" ? meta.exit_code : 1 };
}

function claudeForm(fault: string): Form {
  if (fault === "transport_loss") {
    // The connection dropped mid-turn: the CLI dies after its init line, no result.
    return { lines: fixtureLines("claude", "error_400").slice(0, 1), exitCode: 1, stderr: "Error: socket hang up\n" };
  }
  if (["400", "429", "500"].includes(fault)) return recorded("claude", `error_${fault}`);
  return { lines: substituted(fixtureLines("claude", "error_400"), Number(fault)), exitCode: 1 };
}

function codexForm(fault: string): Form {
  if (fault === "transport_loss") {
    const start = fixtureLines("codex", "error_400").slice(0, 2);
    return { lines: start, exitCode: 1, stderr: "Error: stream disconnected before completion\n" };
  }
  if (["429", "500"].includes(fault)) return recorded("codex", `error_${fault}`);
  if (fault === "529") {
    // codex retries 5xx itself and reports the last status in plain text, as in its recorded 429.
    return {
      lines: fixtureLines("codex", "error_429").map((l) =>
        l.replaceAll("429 Too Many Requests", "529 <unknown status>")
      ),
      exitCode: 1,
    };
  }
  if (fault === "400") return recorded("codex", "error_400");
  // The real API's document has no status text at all: only the error type tells the status.
  return {
    lines: substituted(fixtureLines("codex", "error_400"), Number(fault)).map((l) => l.replace(/ \(HTTP \d{3}\)/g, "")),
    exitCode: 1,
  };
}

async function classOf(lane: Lane, optsKey: string, form: Form): Promise<string> {
  await using dir = await tempDir();
  const { path } = await writeReplayCli(dir.path, {
    lines: form.lines,
    exitCode: form.exitCode,
    ...(form.stderr !== undefined ? { stderr: form.stderr } : {}),
  });
  const { end } = await drain(startWithCli(lane, path, optsKey, { cwd: dir.path }));
  const env = classifyStreamEnd(end);
  return env?.class ?? `no failure (${end.kind})`;
}

Deno.test("classification table: each fault has one class on the claude and codex lanes", async () => {
  const rows: string[] = [];
  for (const [fault, expected] of EXPECTED) {
    const claude = await classOf(claudeLane, "claude_opts", claudeForm(fault));
    const codex = await classOf(codexLane, "codex_opts", codexForm(fault));
    rows.push(`${fault}: claude=${claude} codex=${codex} expected=${expected}`);
  }
  const wrong = rows.filter((r) => {
    const [, claude, codex, expected] = /claude=(\S+) codex=(\S+) expected=(\S+)/.exec(r)!;
    return claude !== expected || codex !== expected;
  });
  assert.deepEqual(wrong, [], `\n${rows.join("\n")}`);
});

Deno.test("classification: codex's 400 without any status text is still a config claim (error type → status)", async () => {
  const lines = fixtureLines("codex", "error_400").map((l) => l.replace(/ \(HTTP 400\)/g, ""));
  assert.ok(lines.every((l) => !l.includes("HTTP 400")), "no status text left");
  assert.equal(await classOf(codexLane, "codex_opts", { lines, exitCode: 1 }), "provider_config_claim");
});
