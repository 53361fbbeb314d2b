/**
 * Control under full load (docs/reference/control-plane.md §6.1): a provider that streams without ever pausing (every `next()`
 * resolves as a microtask) must not starve the request watcher. The request lands mid-stream and only the watcher
 * can report it (the plane's poll interval is an hour), so it is applied before the stream ends only if the pump
 * gives the event loop turns.
 */
import assert from "node:assert/strict";
import { acquireLease } from "../../src/store/lease.ts";
import { readLogEntries } from "../../src/control/log.ts";
import { REQUEST_SCHEMA, requestName } from "../../src/control/request.ts";
import { storePaths } from "../../src/store/paths.ts";
import type { ProviderEvent } from "../../src/events/types.ts";
import { fakeSession, openTestPlane, pumpThrough } from "./_pump_support.ts";
import { eventLoopTurn, TurnYielder } from "../../src/run/turn_yield.ts";
import { within } from "../support/wait.ts";

const RUN_ID = "20261201T100000Z-YIELD1";

Deno.test("a request is applied while the provider streams without pause", async () => {
  const storeRoot = await Deno.makeTempDir({ prefix: "pr-stream-yield-" });
  const lease = await acquireLease(storeRoot, { runId: RUN_ID, packetDir: storeRoot, argv: ["test"] });
  let applied: Record<string, string> | null = null;
  const plane = await openTestPlane(storeRoot, RUN_ID, {
    // No time-based rescan within the test: only the watcher can report the request.
    pollMs: 3_600_000,
    applyView: (_view, changed) => void (applied = { ...changed } as Record<string, string>),
  });
  try {
    plane.transition({ stage: "session", prompt_id: "01", attempt: 1, stream: "initial", session_live: true });
    // The plane's first boundary takes its start-up rescan; the request is written after that, synchronously from
    // inside the stream, so nothing but an event-loop turn can deliver the watch event.
    const p = storePaths(storeRoot);
    let written = -1;
    let produced = 0;
    const deadline = performance.now() + 30_000;
    const provider = async function* (): AsyncGenerator<ProviderEvent> {
      yield { type: "run_started", data: { provider_session_id: "y", model: "simulated" } };
      while (applied === null && performance.now() < deadline) {
        produced++;
        if (produced === 2_000) {
          const name = requestName();
          const body = {
            schema: REQUEST_SCHEMA,
            command: "set_view",
            params: { tool_output: "full" },
            run_id: RUN_ID,
            author: "test",
            issued_at: new Date().toISOString(),
          };
          Deno.writeTextFileSync(`${p.controlTmp}/${name}`, JSON.stringify(body));
          Deno.renameSync(`${p.controlTmp}/${name}`, `${p.requests}/${name}`);
          written = produced;
        }
        yield { type: "message_streamed", data: { delta: "token " } };
      }
      yield { type: "run_completed", data: { stop_reason: "end_turn" } };
    };
    const obs = await pumpThrough(plane, fakeSession(provider(), "y"));
    assert.ok(written > 0, "the request was written mid-stream");
    assert.deepStrictEqual(applied, { tool_output: "full" }, "the view change was applied before the stream ended");
    assert.ok(obs.events > written, `the stream kept going after the request (${obs.events} events)`);
    await plane.sync();
    const entries = (await readLogEntries(storeRoot)).filter((e) => e.command === "set_view");
    assert.deepStrictEqual(entries.map((e) => e.outcome), ["applied"]);
  } finally {
    await plane.close("completed", null);
    await lease.release();
    await Deno.remove(storeRoot, { recursive: true });
  }
});

Deno.test("TurnYielder: a turn is due after the interval of work, and yielding restarts it", async () => {
  let now = 0;
  const y = new TurnYielder(2, () => now);
  assert.deepStrictEqual(y.due(), false);
  now = 1.9;
  assert.deepStrictEqual(y.due(), false);
  now = 2;
  assert.deepStrictEqual(y.due(), true);
  await y.yield();
  assert.deepStrictEqual(y.turns, 1);
  assert.deepStrictEqual(y.due(), false);
  now = 4;
  assert.deepStrictEqual(y.due(), true);
});

Deno.test("eventLoopTurn lets a pending timer callback run before it resolves", async () => {
  let fired = false;
  const t = setTimeout(() => (fired = true), 0);
  // Microtasks alone never run a timer callback; wait on the condition, turn by turn.
  for (let i = 0; i < 10_000 && !fired; i++) await eventLoopTurn();
  clearTimeout(t);
  assert.ok(fired);
});

Deno.test("the pump's turns leave nothing open: a process that pumped a busy stream exits by itself", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./_pump_exit.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const exited = await within(child.status, 60_000, null);
  if (exited === null) child.kill("SIGKILL");
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.ok(exited !== null, `the process did not exit after the stream ended (stdout: ${stdout})`);
  assert.equal(exited.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(stdout, /^pumped \d+ events$/m, "the stream ran to its end");
});

Deno.test("a stream still live when its plane closes ends normally: the pump does not spin on the closed plane", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    // A small heap: a pump spinning in microtasks (each turn adding a listener) runs out of it in seconds.
    args: ["run", "-A", "--v8-flags=--max-old-space-size=128", new URL("./_pump_closed.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const exited = await within(child.status, 30_000, null);
  if (exited === null) child.kill("SIGKILL");
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.ok(exited !== null, `the pump never ended (stdout: ${stdout})`);
  assert.equal(exited.code, 0, new TextDecoder().decode(out.stderr).slice(-2000));
  assert.match(stdout, /^pumped 2 events$/m, "both events were pumped, the second after the plane closed");
});
