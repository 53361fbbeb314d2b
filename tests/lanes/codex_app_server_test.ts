/**
 * The codex `app-server` conversation replayed from captures of the real CLI (tests/fixtures/lanes/codex_app_server,
 * scripts/record_app_server_fixtures.ts): the requests the channel writes, and the canonical events its translation
 * yields — identical to those of the `codex exec` capture of the same turn.
 */
import assert from "node:assert/strict";
import type { ProviderEvent } from "../../src/events/types.ts";
import { codexLane, codexProfile, codexTransport } from "../../src/lanes/codex.ts";
import { LaunchError } from "../../src/lanes/types.ts";
import { AppServerChannel, type SteerAck } from "../../src/lanes/codex_app_server_channel.ts";
import { classify, execItem, threadParams } from "../../src/lanes/codex_app_server.ts";
import { type JsonObject, parseJsonObject } from "../../src/lanes/_json.ts";
import { fixtureLines, fixtureMeta, parseLines, testOptions, testSpec, typesOf } from "./_support.ts";

interface Replay {
  execLines: string[];
  sent: JsonObject[];
  closed: boolean;
  acks: Promise<SteerAck | boolean>[];
}

/**
 * Feed a capture to a fresh channel as the server's stdout; `onCommand` acts the way the recorder did once the
 * first command started.
 */
async function replay(
  name: string,
  onCommand?: (c: AppServerChannel) => Promise<SteerAck | boolean>,
): Promise<Replay> {
  const meta = fixtureMeta("codex_app_server", name);
  const r: Replay = { execLines: [], sent: [], closed: false, acks: [] };
  const channel = new AppServerChannel(
    testSpec({ prompt: String(meta["prompt"]), cwd: "/scratch/e2e/repo", options: testOptions(opts) }),
    { write: (l) => r.sent.push(JSON.parse(l)), closeInput: () => (r.closed = true) },
  );
  channel.open();
  for (const line of fixtureLines("codex_app_server", name)) {
    const exec = channel.receive(parseJsonObject(line)!);
    r.execLines.push(...exec.map((e) => JSON.stringify(e)));
    const started = exec.some((e) => e["type"] === "item.started");
    if (onCommand && started && r.acks.length === 0) r.acks.push(onCommand(channel));
    // The server answered after reading what the channel wrote: let the channel's pending work run first.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return r;
}

const opts = { provider: "codex", model: "gpt-5.5", permission_mode: "auto" as const };

/** Canonical events with the session id (a different thread in each capture) replaced. */
function canonical(lines: string[]): ProviderEvent[] {
  const { events } = parseLines(codexProfile, lines);
  return events.map((e) =>
    e.type === "run_started" ? { ...e, data: { ...e.data, provider_session_id: "<thread>" } } : e
  );
}

for (const name of ["text", "write", "edit", "bash", "thinking", "error_400", "error_500"]) {
  Deno.test(`codex app-server: the ${name} turn yields the canonical events of codex exec`, async () => {
    const r = await replay(name);
    const viaAppServer = canonical(r.execLines);
    const viaExec = canonical(fixtureLines("codex", name));
    assert.ok(viaExec.length > 2, "the exec capture has events");
    assert.deepEqual(viaAppServer, viaExec);
    assert.equal(r.closed, true, "stdin is closed once the turn ended");
  });
}

Deno.test("codex app-server: the handshake is initialize, initialized, thread/start, turn/start with the prompt", async () => {
  const r = await replay("text");
  assert.deepEqual(r.sent.map((m) => m["method"]), ["initialize", "initialized", "thread/start", "turn/start"]);
  const meta = fixtureMeta("codex_app_server", "text");
  assert.deepEqual(r.sent, (meta["sent"] as string[]).map((l) => JSON.parse(l)), "the recorder sent the same");
  const start = r.sent[3]!["params"] as JsonObject;
  assert.deepEqual(start["input"], [{ type: "text", text: meta["prompt"], text_elements: [] }]);
  const thread = r.sent[2]!["params"] as JsonObject;
  assert.equal(thread["sandbox"], "workspace-write");
  assert.equal(thread["approvalPolicy"], "never");
  assert.equal(thread["model"], "gpt-5.5");
});

Deno.test("codex app-server: a steer during a tool call is acknowledged and the tool runs to its end", async () => {
  const text = "Operator steer: also mention the tokenizer.";
  const r = await replay("steer_tool", (c) => c.steer(text));
  const ack = await r.acks[0];
  assert.ok(ack && typeof ack === "object" && ack.delivered, `delivered: ${JSON.stringify(ack)}`);
  const steer = r.sent.find((m) => m["method"] === "turn/steer")!;
  const p = steer["params"] as JsonObject;
  assert.deepEqual(p["input"], [{ type: "text", text, text_elements: [] }]);
  assert.equal(typeof p["expectedTurnId"], "string");
  const events = canonical(r.execLines);
  const done = events.find((e) => e.type === "tool_call_completed");
  assert.ok(done, "the command completed (not cancelled)");
  const sent = events.filter((e) => e.type === "message_sent");
  assert.deepEqual(sent.map((e) => [e.data.content, e.hidden ?? false]), [[text, false]], "the steer, visibly");
  assert.ok(events.indexOf(sent[0]!) > events.indexOf(done), "entering the thread after the command's result");
  assert.equal(typesOf(events).at(-1), "run_completed");
  assert.equal(events.filter((e) => e.type === "run_completed").length, 1);
  assert.equal(fixtureMeta("codex_app_server", "steer_tool")["requests"], 2, "the guidance went to a second request");
});

Deno.test("codex app-server: an interrupt continues the same thread with the guidance, one terminal event", async () => {
  const text = "Operator steer: skip the slow command. [[e2e:text Steered.]]";
  const r = await replay("interrupt_tool", (c) => c.interruptAndContinue(text));
  assert.equal(await r.acks[0], true);
  const methods = r.sent.map((m) => m["method"]);
  assert.deepEqual(methods.slice(-2), ["turn/interrupt", "turn/start"]);
  const next = r.sent.at(-1)!["params"] as JsonObject;
  const thread = (r.sent.find((m) => m["method"] === "turn/interrupt")!["params"] as JsonObject)["threadId"];
  assert.equal(next["threadId"], thread, "the guidance's turn is on the same thread");
  assert.deepEqual(next["input"], [{ type: "text", text, text_elements: [] }]);
  const events = canonical(r.execLines);
  assert.ok(events.some((e) => e.type === "message_received" && e.data.content === "Steered."));
  assert.ok(events.some((e) => e.type === "message_sent" && e.data.content === text && !e.hidden));
  const stopped = events.find((e) => e.type === "tool_call_failed");
  assert.ok(
    stopped?.type === "tool_call_failed" && stopped.data.tool_name === "shell",
    "the stopped command failed",
  );
  assert.ok(events.indexOf(stopped) < events.findIndex((e) => e.type === "message_sent" && !e.hidden));
  assert.deepEqual(events.filter((e) => e.type.startsWith("run_") && e.type !== "run_started").map((e) => e.type), [
    "run_completed",
  ]);
  assert.equal(r.closed, true);
});

Deno.test("codex app-server: a steer with no running turn is refused with -32600 and writes nothing", async () => {
  const sent: string[] = [];
  const c = new AppServerChannel(testSpec(), { write: (l) => sent.push(l), closeInput: () => {} });
  const ack = await c.steer("late");
  assert.deepEqual(ack, { delivered: false, code: -32600, message: "no active turn" });
  assert.deepEqual(sent, []);
  assert.equal(await c.interruptAndContinue("late"), false);
});

Deno.test("codex app-server: the server's refusal of a steer is reported with its code and message", async () => {
  const sent: JsonObject[] = [];
  const c = new AppServerChannel(testSpec(), { write: (l) => sent.push(JSON.parse(l)), closeInput: () => {} });
  c.open();
  c.receive({ id: 1, result: {} });
  c.receive({ id: 2, result: { thread: { id: "T" } } });
  c.receive({ method: "turn/started", params: { threadId: "T", turn: { id: "U", items: [], status: "inProgress" } } });
  const ack = c.steer("guide");
  const id = sent.at(-1)!["id"];
  c.receive({ id, error: { code: -32600, message: "expected active turn id U but found V" } });
  assert.deepEqual(await ack, { delivered: false, code: -32600, message: "expected active turn id U but found V" });
});

Deno.test("codex app-server: a failed handshake ends the turn as a provider error and closes stdin", () => {
  let closed = false;
  const c = new AppServerChannel(testSpec(), { write: () => {}, closeInput: () => (closed = true) });
  c.open();
  const lines = c.receive({ id: 1, error: { code: -32603, message: "boom" } });
  const { events } = parseLines(codexProfile, lines.map((l) => JSON.stringify(l)));
  assert.deepEqual(typesOf(events), ["error_occurred", "run_failed"]);
  assert.match(String((events[1]!.data as { error_message: string }).error_message), /initialize failed: boom/);
  assert.equal(closed, true);
});

Deno.test("codex app-server: a server request is answered with an error, never left pending", () => {
  const sent: JsonObject[] = [];
  const c = new AppServerChannel(testSpec(), { write: (l) => sent.push(JSON.parse(l)), closeInput: () => {} });
  c.receive({ id: 7, method: "item/tool/requestUserInput", params: {} });
  assert.equal(sent[0]!["id"], 7);
  assert.equal((sent[0]!["error"] as JsonObject)["code"], -32601);
});

Deno.test("codex app-server: classify tells responses, errors, requests, notifications and garbage apart", () => {
  assert.equal(classify({ id: 1, result: {} }).kind, "response");
  assert.equal(classify({ id: 1, error: { code: 1, message: "x" } }).kind, "error");
  assert.equal(classify({ id: 1, method: "m", params: {} }).kind, "request");
  assert.equal(classify({ method: "m" }).kind, "notification");
  assert.equal(classify({ foo: 1 }).kind, "invalid");
  assert.equal(classify({ id: 3 }).kind, "invalid");
});

Deno.test("codex app-server: items exec does not print are skipped; statuses are exec's", () => {
  assert.equal(execItem({ type: "userMessage", id: "u" }), null);
  assert.deepEqual(execItem({ type: "commandExecution", command: "ls", status: "inProgress" }), {
    type: "command_execution",
    command: "ls",
    aggregated_output: "",
    exit_code: null,
    status: "in_progress",
  });
});

Deno.test("codex app-server: thread options carry the exec lane's settings", () => {
  const spec = testSpec({
    cwd: "/w",
    extraDirs: ["/other"],
    options: testOptions({ provider: "codex", model: "m", reasoning_effort: "high", permission_mode: "bypass" }),
    resumeSessionId: "T1",
  });
  assert.deepEqual(threadParams(spec), {
    cwd: "/w",
    approvalPolicy: "never",
    model: "m",
    sandbox: "danger-full-access",
    threadId: "T1",
  });
});

Deno.test("codex transport: codex_opts.app_server selects app_server; exec is the default; a bad value is named", () => {
  const opts = (v: unknown) => testOptions({ provider: "codex", provider_opts: { codex_opts: { app_server: v } } });
  assert.equal(codexTransport(testOptions({ provider: "codex" })), "exec");
  assert.equal(codexTransport(opts(false)), "exec");
  assert.equal(codexTransport(opts(true)), "app_server");
  assert.equal(codexLane.transportFor(opts(true)), "app_server");
  assert.deepEqual(codexLane.profile.transports, ["exec", "app_server"]);
  assert.throws(
    () => codexTransport(opts("yes")),
    (e: unknown) =>
      e instanceof LaunchError && /codex_opts\.app_server: expected true or false; got "yes"/.test(e.message),
  );
});

Deno.test("codex app-server: an interrupt whose session ends before the next turn starts is refused, not left pending", async () => {
  const c = new AppServerChannel(testSpec(), { write: () => {}, closeInput: () => {} });
  c.open();
  c.receive({ id: 1, result: {} });
  c.receive({ id: 2, result: { thread: { id: "T" } } });
  await new Promise((resolve) => setTimeout(resolve, 0));
  c.receive({ method: "turn/started", params: { threadId: "T", turn: { id: "U", items: [], status: "inProgress" } } });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const started = c.interruptAndContinue("guide", () => held);
  c.receive({
    method: "turn/completed",
    params: { threadId: "T", turn: { id: "U", items: [], status: "interrupted" } },
  });
  // The stream ends while the leftovers are still being stopped.
  c.abandon();
  release();
  assert.equal(await started, false);
  const late = await c.steer("later");
  assert.equal(late.delivered, false);
});
