/**
 * The codex lane's `app_server` transport against the real `codex app-server` and the loopback fake OpenAI server:
 * a plain turn, an in-turn steer during a long command (the command runs to its end, the next model request carries
 * the guidance), an in-process interrupt (the command's processes are gone, the guidance continues the same
 * thread), a garbage-writing server, and no process left behind. Ignored, visibly, when codex is not installed.
 */
import assert from "node:assert/strict";
import { codexLane } from "../../src/lanes/codex.ts";
import type { LaneSession, SessionSpec } from "../../src/lanes/types.ts";
import { codexEnv, e2eBinary } from "../support/e2e_env.ts";
import { type InputItem, openaiItemText, startFakeOpenAI } from "../support/fake_openai.ts";
import type { FakeServer } from "../support/fake_server_common.ts";
import { initRepo, tempDir } from "../support/fs.ts";
import { collect, pidsMatching, testOptions, testSpec } from "./_support.ts";
import { waitFor } from "../support/wait.ts";

interface Rig {
  server: FakeServer;
  dir: string;
  spec(prompt: string, over?: Partial<SessionSpec>): SessionSpec;
  [Symbol.asyncDispose](): Promise<void>;
}

async function rig(bin: string): Promise<Rig> {
  const dir = await tempDir("pr-app-server-real-");
  const repo = `${dir.path}/repo`;
  await initRepo(repo, { "notes.txt": "alpha\n" });
  const server = await startFakeOpenAI({ slowTickMs: 200 });
  const env = await codexEnv(dir.path, server.port);
  const options = testOptions({
    provider: "codex",
    model: "gpt-5.5",
    permission_mode: "auto",
    provider_opts: { codex_opts: { cli_path: bin, app_server: true } },
  });
  return {
    server,
    dir: dir.path,
    spec: (prompt, over = {}) => testSpec({ prompt, cwd: repo, env: env.env, options, ...over }),
    async [Symbol.asyncDispose]() {
      await server.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** Start through the lane, as the runner does: `codex_opts.app_server: true` selects the transport. */
function start(spec: SessionSpec): LaneSession {
  const s = codexLane.start(spec);
  assert.equal(s.transport.name, "app_server");
  return s;
}

/** Whether any input item of a logged request's body carries `text`. */
function requestHas(body: unknown, text: string): boolean {
  const input = body !== null && typeof body === "object" ? (body as Record<string, unknown>)["input"] : null;
  return Array.isArray(input) && (input as InputItem[]).some((i) => openaiItemText(i).includes(text));
}

const bin = e2eBinary("codex");
if (bin === null) {
  console.error("SKIPPED: codex app-server tests — binary not installed (scripts/install_e2e_tools.ts)");
}
const test = (title: string, fn: () => Promise<void>) =>
  Deno.test({
    name: `codex app_server (real CLI): ${title}`,
    ignore: bin === null,
    sanitizeOps: false,
    sanitizeResources: false,
    fn,
  });

test("a plain text turn completes, the process exits, the thread id is the session id", async () => {
  await using r = await rig(bin!);
  const s = start(r.spec("Say hello. [[e2e:text Hello there, operator.]]"));
  const events = await collect(s);
  assert.deepEqual(s.end(), { kind: "ok" }, JSON.stringify(events.slice(-3)));
  assert.ok(s.sessionId);
  assert.ok(events.some((e) => e.type === "message_received" && e.data.content === "Hello there, operator."));
  assert.equal(events.at(-1)!.type, "run_completed");
  const started = events.find((e) => e.type === "run_started");
  assert.ok(started?.type === "run_started" && started.data.args?.[0] === "app-server");
});

test("an in-turn steer during a long command: the command ends by itself, the next request has the guidance", async () => {
  await using r = await rig(bin!);
  const arg = `2.${Math.floor(Math.random() * 1e6)}`;
  const guide = `GUIDE-${crypto.randomUUID().slice(0, 8)}`;
  const s = start(r.spec(`Run a long command. [[e2e:bash sleep ${arg}]]`));
  let toolStarted!: () => void;
  const toolSeen = new Promise<void>((res) => (toolStarted = res));
  const drained = collect(s, (e) => e.type === "tool_call_started" && toolStarted());
  await toolSeen;
  await s.sendInTurn!(`Operator: ${guide}`);
  const events = await drained;
  assert.deepEqual(s.end(), { kind: "ok" }, JSON.stringify(events.slice(-3)));
  const done = events.find((e) => e.type === "tool_call_completed");
  assert.ok(done?.type === "tool_call_completed" && done.data.exit_code === 0, "the command ran to its end");
  const reqs = r.server.requests;
  assert.equal(reqs.length, 2);
  assert.ok(!requestHas(reqs[0]!.body, guide));
  assert.ok(requestHas(reqs[1]!.body, guide), "the model's next request contains the guidance");
  assert.deepEqual(pidsMatching(`sleep ${arg}`), []);
});

test("an in-process interrupt stops the command (no process of it left) and continues the same thread", async () => {
  await using r = await rig(bin!);
  const arg = `3${Math.floor(Math.random() * 9)}.${Math.floor(Math.random() * 1e6)}`;
  const guide = `GUIDE-${crypto.randomUUID().slice(0, 8)}`;
  const s = start(r.spec(`Run a long command. [[e2e:bash sleep ${arg}]]`));
  let toolStarted!: () => void;
  const toolSeen = new Promise<void>((res) => (toolStarted = res));
  const drained = collect(s, (e) => e.type === "tool_call_started" && toolStarted());
  await toolSeen;
  await waitFor(() => pidsMatching(`sleep ${arg}`).length > 0, {
    timeoutMs: 10_000,
    what: "the command's sleep",
    intervalMs: 50,
  });
  await s.interruptInProcess!(`Operator: ${guide} [[e2e:text Steered.]]`);
  assert.deepEqual(pidsMatching(`sleep ${arg}`), [], "the command is gone once the guidance is accepted");
  const events = await drained;
  assert.deepEqual(s.end(), { kind: "ok" }, JSON.stringify(events.slice(-3)));
  assert.ok(events.some((e) => e.type === "message_received" && e.data.content === "Steered."));
  assert.equal(events.filter((e) => e.type === "run_started").length, 1, "one session");
  const reqs = r.server.requests;
  const last = reqs.at(-1)!;
  assert.ok(requestHas(last.body, guide), "the guidance reached the model");
  assert.ok(requestHas(last.body, "Run a long command."), "in the same thread (history kept)");
});

test("a server that writes garbage ends the stream as a protocol error, never hangs", async () => {
  await using r = await rig(bin!);
  const fake = `${r.dir}/garbage.sh`;
  await Deno.writeTextFile(fake, "#!/bin/sh\nread line\necho 'this is not json'\nsleep 30\n");
  await Deno.chmod(fake, 0o755);
  const spec = r.spec("Hello.");
  spec.options = { ...spec.options, provider_opts: { codex_opts: { cli_path: fake, app_server: true } } };
  const s = start(spec);
  const events = await collect(s);
  const end = s.end();
  assert.equal(end.kind, "error");
  assert.ok(end.kind === "error" && end.code === "protocol_error" && end.hintClass === "protocol_error");
  assert.equal(events.at(-1)!.type, "run_failed");
});

test("a server that dies mid-handshake ends the stream as a provider error", async () => {
  await using r = await rig(bin!);
  const fake = `${r.dir}/crash.sh`;
  await Deno.writeTextFile(fake, '#!/bin/sh\nread line\nprintf \'{"id":1,"res\'\nexit 3\n');
  await Deno.chmod(fake, 0o755);
  const spec = r.spec("Hello.");
  spec.options = { ...spec.options, provider_opts: { codex_opts: { cli_path: fake, app_server: true } } };
  const s = start(spec);
  const events = await collect(s);
  const end = s.end();
  assert.equal(end.kind, "error", JSON.stringify(events));
  assert.equal(events.at(-1)!.type, "run_failed");
});

test("thread/resume continues a finished thread; an unknown thread is 'session not found'", async () => {
  await using r = await rig(bin!);
  const first = start(r.spec("First turn. [[e2e:text First answer.]]"));
  await collect(first);
  assert.deepEqual(first.end(), { kind: "ok" });
  const id = first.sessionId!;
  const resumed = start(
    r.spec("Second turn. [[e2e:text Second answer.]]", { resumeSessionId: id, streamKind: "steer" }),
  );
  const events = await collect(resumed);
  assert.deepEqual(resumed.end(), { kind: "ok" }, JSON.stringify(events.slice(-3)));
  assert.equal(resumed.sessionId, id);
  assert.ok(requestHas(r.server.requests.at(-1)!.body, "First turn."), "the history is kept");
  const gone = start(
    r.spec("Third.", { resumeSessionId: "01a22b0b-0000-7000-8000-000000000000", streamKind: "steer" }),
  );
  await collect(gone);
  const end = gone.end();
  assert.ok(end.kind === "error" && end.sessionNotFound, JSON.stringify(end));
});
