/**
 * The claude and codex lanes against the real CLIs and the loopback fake servers (docs/reference/providers.md §7): a plain turn,
 * interrupt + resume of the same session in the same cwd (the steer transport), and a mid-tool interrupt that must
 * leave no tool process behind. Ignored, visibly, when the binaries are not installed.
 */
import assert from "node:assert/strict";
import type { ProviderEvent } from "../../src/events/types.ts";
import { claudeLane } from "../../src/lanes/claude.ts";
import { codexLane } from "../../src/lanes/codex.ts";
import type { Lane, SessionSpec } from "../../src/lanes/types.ts";
import { claudeEnv, codexEnv, e2eBinary } from "../support/e2e_env.ts";
import { startFakeAnthropic } from "../support/fake_anthropic.ts";
import { startFakeOpenAI } from "../support/fake_openai.ts";
import type { FakeServer } from "../support/fake_server_common.ts";
import { initRepo, tempDir } from "../support/fs.ts";
import { collect, pidsMatching, testOptions, testSpec } from "./_support.ts";
import { waitFor } from "../support/wait.ts";

type Name = "claude" | "codex";
const LANES: Record<Name, { lane: Lane; optsKey: string }> = {
  claude: { lane: claudeLane, optsKey: "claude_opts" },
  codex: { lane: codexLane, optsKey: "codex_opts" },
};

interface Rig {
  /** The loopback fake model server the CLI talks to. */
  server: FakeServer;
  spec(prompt: string, over?: Partial<SessionSpec>): SessionSpec;
  [Symbol.asyncDispose](): Promise<void>;
}

async function rig(name: Name): Promise<Rig> {
  const dir = await tempDir("pr-lane-real-");
  const repo = `${dir.path}/repo`;
  await initRepo(repo, { "notes.txt": "alpha\n" });
  const server = name === "claude"
    ? await startFakeAnthropic({ slowTickMs: 200 })
    : await startFakeOpenAI({ slowTickMs: 200 });
  const env = name === "claude" ? await claudeEnv(dir.path, server.port) : await codexEnv(dir.path, server.port);
  const bin = e2eBinary(name)!;
  const options = testOptions({
    provider: name,
    permission_mode: "auto",
    allowed_tools: name === "claude" ? ["Bash"] : null,
    provider_opts: { [LANES[name].optsKey]: { cli_path: bin } },
  });
  if (name === "claude" && Deno.uid() === 0) env.env.IS_SANDBOX = "1";
  return {
    server,
    spec: (prompt, over = {}) => testSpec({ prompt, cwd: repo, env: env.env, options, ...over }),
    async [Symbol.asyncDispose]() {
      await server.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

for (const name of ["claude", "codex"] as const) {
  const ignore = e2eBinary(name) === null;
  if (ignore) {
    console.error(`SKIPPED: real ${name} lane tests — binary not installed (run scripts/install_e2e_tools.ts)`);
  }
  const test = (title: string, fn: () => Promise<void>) =>
    Deno.test({ name: `${name} lane (real CLI): ${title}`, ignore, sanitizeOps: false, sanitizeResources: false, fn });
  const lane = LANES[name].lane;

  test("a plain text turn completes with the session id known", async () => {
    await using r = await rig(name);
    const s = lane.start(r.spec("Say hello. [[e2e:text Hello there, operator.]]"));
    const events = await collect(s);
    assert.deepEqual(s.end(), { kind: "ok" });
    assert.ok(s.sessionId);
    const text = events.filter((e) => e.type === "message_received").map((e) => e.data.content).join("");
    assert.match(text, /Hello there, operator\./);
    assert.equal(events[events.length - 1]!.type, "run_completed");
  });

  test("interrupt mid-stream, then resume the same session in the same cwd", async () => {
    await using r = await rig(name);
    const s = lane.start(r.spec("Work slowly. [[e2e:slow 20]]"));
    const seen: ProviderEvent[] = [];
    const drained = collect(s, (e) => seen.push(e));
    await s.whenReady();
    assert.ok(s.isReady());
    // Mid-stream: the CLI's model request has reached the fake server, which is streaming the slow reply (codex
    // prints nothing until the turn's message is complete, so the lane's own events cannot tell).
    await r.server.waitForRequest(() => true, 30_000);
    assert.ok(seen.every((e) => e.type !== "run_completed"), "the turn is still running");
    await s.interrupt("interrupted_for_steer", 5000);
    const events = await drained;
    assert.deepEqual(s.end(), { kind: "cancelled", reason: "interrupted_for_steer", interrupted: true });
    assert.equal(events[events.length - 1]!.type, "run_cancelled");
    const sid = s.sessionId!;
    assert.ok(sid);
    const resumed = lane.start(
      r.spec("Steer: finish now. [[e2e:text Steered.]]", { resumeSessionId: sid, streamKind: "steer" }),
    );
    const revents = await collect(resumed);
    assert.deepEqual(resumed.end(), { kind: "ok" }, JSON.stringify(revents.slice(-3)));
    assert.equal(resumed.sessionId, sid);
    const started = revents.find((e) => e.type === "run_started");
    assert.equal(started?.type === "run_started" && started.data.provider_session_id, sid);
  });

  test("interrupt mid-tool leaves no tool process behind", async () => {
    await using r = await rig(name);
    const arg = `3${Math.floor(Math.random() * 9)}.${Math.floor(Math.random() * 1e6)}`;
    const s = lane.start(r.spec(`Run a long command. [[e2e:bash sleep ${arg}]]`));
    let toolStarted!: () => void;
    const toolSeen = new Promise<void>((res) => (toolStarted = res));
    const drained = collect(s, (e) => {
      if (e.type === "tool_call_started") toolStarted();
    });
    await toolSeen;
    const running = await waitFor(() => {
      const hits = pidsMatching(`sleep ${arg}`);
      return hits.length > 0 && hits;
    }, { timeoutMs: 10_000, what: "the tool's sleep", intervalMs: 50 }).catch(() => [] as number[]);
    assert.ok(running.length > 0, "the tool's sleep was running before the interrupt");
    await s.interrupt("interrupted_for_steer", 5000);
    await drained;
    assert.equal(s.end().kind, "cancelled");
    assert.deepEqual(pidsMatching(`sleep ${arg}`), []);
  });

  test("resume of an unknown session reports sessionNotFound", async () => {
    await using r = await rig(name);
    const unknown = name === "claude" ? crypto.randomUUID() : "01a22b0b-c187-7188-a998-3a45325bd1a7";
    const s = lane.start(r.spec("Steer. [[e2e:text x]]", { resumeSessionId: unknown, streamKind: "steer" }));
    await collect(s);
    const end = s.end();
    assert.equal(end.kind, "error");
    assert.equal(end.kind === "error" && end.sessionNotFound, true);
  });
}
