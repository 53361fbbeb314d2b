/**
 * The transport facts the claude and codex lanes rely on (docs/reference/providers.md §2, §3, §7), checked directly against the
 * real binaries and the fake servers — without our runner. When one of these fails, the pinned CLI no longer behaves
 * as the lane profiles assume.
 */
import assert from "node:assert/strict";
import { startFakeAnthropic } from "../support/fake_anthropic.ts";
import { startFakeOpenAI } from "../support/fake_openai.ts";
import { claudeEnv, codexEnv, e2eBinary, removeScratch } from "../support/e2e_env.ts";
import { afterLine, driveCli, type DriveResult, killAll, waitForDescendant } from "../support/fake_server_driver.ts";
import type { FakeServer } from "../support/fake_server_common.ts";
import { e2eSkipReason, type LaneName, marker, processesMatching } from "./_harness.ts";
import { pause } from "../support/wait.ts";

interface Rig extends AsyncDisposable {
  bin: string;
  cwd: string;
  env: Record<string, string>;
  server: FakeServer;
}

async function rig(lane: LaneName): Promise<Rig> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: `pr-raw-${lane}-` }));
  const cwd = `${root}/repo`;
  await Deno.mkdir(cwd);
  const server = lane === "claude" ? await startFakeAnthropic() : await startFakeOpenAI();
  const { env } = lane === "claude" ? await claudeEnv(root, server.port) : await codexEnv(root, server.port);
  return {
    bin: e2eBinary(lane)!,
    cwd,
    env,
    server,
    async [Symbol.asyncDispose]() {
      await server.close();
      await removeScratch(root);
    },
  };
}

function fresh(lane: LaneName, prompt: string): string[] {
  return lane === "claude"
    ? ["-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--", prompt]
    : ["exec", "--json", "--skip-git-repo-check", "-s", "workspace-write", prompt];
}

function resume(lane: LaneName, id: string, prompt: string): string[] {
  return lane === "claude"
    ? ["-p", "--resume", id, "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--", prompt]
    : ["exec", "resume", "--json", "--skip-git-repo-check", "-c", 'sandbox_mode="workspace-write"', id, prompt];
}

function sessionOf(r: DriveResult): string | null {
  for (const { line } of r.lines) {
    try {
      const o = JSON.parse(line);
      if (typeof o.session_id === "string") return o.session_id;
      if (o.type === "thread.started") return o.thread_id;
    } catch {
      // Not JSON.
    }
  }
  return null;
}

function posts(server: FakeServer) {
  return server.requests.filter((r) => r.method === "POST");
}

function lastUserText(lane: LaneName, body: unknown): string {
  const b = body as Record<string, unknown>;
  const list = (lane === "claude" ? b.messages : b.input) as { role?: string; content?: unknown }[];
  const users = list.filter((m) => m.role === "user");
  const last = users.at(-1);
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return (last.content as { text?: string }[]).map((c) => c.text ?? "").join("\n");
}

/** Readiness rule of docs/reference/control-plane.md §8.5 plus a margin, mid-stream. */
function streamReady(lane: LaneName) {
  return lane === "claude"
    ? afterLine((o) => o.type === "stream_event", 300)
    : afterLine((o) => o.type === "turn.started", 300);
}

for (const lane of ["claude", "codex"] as const) {
  const skip = e2eSkipReason(lane);
  const ignore = skip !== null;
  if (skip) console.error(`SKIPPED: raw ${skip}`);
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test({ name: `raw ${lane}: ${name}`, ignore, sanitizeOps: false, sanitizeResources: false, fn });

  test("a text turn completes offline with only loopback requests", async () => {
    await using r = await rig(lane);
    const out = await driveCli(r.bin, fresh(lane, "hi [[e2e:text Plain answer.]]"), { cwd: r.cwd, env: r.env });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /Plain answer\./);
    assert.ok(sessionOf(out));
    assert.equal(posts(r.server).length, 1);
  });

  test("SIGINT after readiness then resume: same session, history has the prompt, steer is last", async () => {
    await using r = await rig(lane);
    const original = marker("ORIGINAL");
    const steer = marker("STEER");
    const first = await driveCli(r.bin, fresh(lane, `${original} [[e2e:slow 20]]`), {
      cwd: r.cwd,
      env: r.env,
      interrupt: { signal: "SIGINT", trigger: streamReady(lane) },
    });
    assert.ok(first.interrupt, "interrupted");
    assert.ok(first.durationMs < 15_000, "the interrupt ended the slow turn");
    assert.equal(first.code, lane === "claude" ? 0 : 1, first.stderr);
    const id = sessionOf(first)!;
    const second = await driveCli(r.bin, resume(lane, id, `${steer} [[e2e:text Resumed.]]`), {
      cwd: r.cwd,
      env: r.env,
    });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(sessionOf(second), id, "same session id re-emitted");
    const resumed = posts(r.server).at(-1)!;
    assert.ok(JSON.stringify(resumed.body).includes(original), "original prompt in the resumed history");
    assert.ok(lastUserText(lane, resumed.body).includes(steer), "steer in the latest user message");
    const header = lane === "claude" ? "x-claude-code-session-id" : "session-id";
    assert.equal(resumed.headers[header], id);
  });

  test("SIGINT mid-tool kills the tool child (no orphan)", async () => {
    await using r = await rig(lane);
    const sleepArg = `5${Math.floor(Math.random() * 9)}.${Math.floor(Math.random() * 1e6)}`;
    const args = fresh(lane, `[[e2e:bash sleep ${sleepArg}]]`);
    if (lane === "claude") args.splice(1, 0, "--allowedTools=Bash");
    const out = await driveCli(r.bin, args, {
      cwd: r.cwd,
      env: r.env,
      interrupt: {
        signal: "SIGINT",
        trigger: (line, ctx) =>
          line.includes(`sleep ${sleepArg}`)
            ? waitForDescendant(ctx.pid, /^sleep$/).then(() => pause(300)) // SIGINT while the tool runs, not at its exec
            : null,
      },
    });
    killAll(out.orphans);
    assert.ok(out.interrupt, "interrupted mid-tool");
    assert.ok(out.interrupt.descendants.some((p) => p.comm === "sleep"), "the tool was running");
    if (lane === "claude") {
      // Observed: usually exit 1, occasionally 0 — the result line is the stable signal.
      assert.ok(out.code === 0 || out.code === 1, `exit ${out.code}`);
      assert.match(out.stdout, /"terminal_reason":"aborted_tools"/);
    } else assert.equal(out.code, 1, out.stderr);
    assert.deepEqual(out.orphans.map((p) => p.comm), []);
    assert.deepEqual(processesMatching(`sleep ${sleepArg}`), []);
  });

  test("resume of an unknown session id reports session-not-found and exits 1", async () => {
    await using r = await rig(lane);
    const id = lane === "claude" ? crypto.randomUUID() : "01a22aaa-f7cf-7d41-b470-a639674de506";
    const out = await driveCli(r.bin, resume(lane, id, "continue"), { cwd: r.cwd, env: r.env });
    assert.equal(out.code, 1, out.stderr);
    const pattern = lane === "claude" ? /No conversation found with session ID/ : /no rollout found for thread id/;
    assert.match(out.stderr, pattern);
    assert.equal(posts(r.server).length, 0, "no model request");
  });
}
