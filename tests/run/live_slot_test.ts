import assert from "node:assert/strict";
import { LiveSlot, type LiveStream } from "../../src/run/live_slot.ts";
import { RunContext, RunEnv, RunScope } from "../../src/run/context.ts";
import { StateStore } from "../../src/run/state.ts";
import type { Packet } from "../../src/packet/types.ts";
import type { RunnerPlane } from "../../src/control/plane_types.ts";
import { DEFAULT_VIEW, type View } from "../../src/events/types.ts";
import type { LaneSession } from "../../src/lanes/types.ts";
import type { Renderer, TextSink } from "../../src/render/types.ts";
import { newStreamState } from "../../src/render/core.ts";

function renderer(mode: View["log_mode"]): Renderer {
  return {
    mode,
    render: () => "",
    finish: () => "",
    setView() {},
    breakLine: () => "",
    streamState: () => newStreamState(),
  };
}

function stream(r: Renderer): LiveStream {
  return {
    session: { sessionId: "s" } as unknown as LaneSession,
    promptId: "02",
    attempt: 1,
    cwd: "/x",
    renderer: r,
    provider: "simulated",
  };
}

function sink(): TextSink & { text: string; closed: number } {
  const s = {
    text: "",
    closed: 0,
    write(t: string) {
      s.text += t;
    },
    flush() {},
    close() {
      s.closed++;
    },
  };
  return s;
}

Deno.test("LiveSlot: the view is a copy, replaced as a whole by setView", () => {
  const seed: View = { ...DEFAULT_VIEW };
  const slot = new LiveSlot(seed);
  assert.deepEqual(slot.view, seed);
  assert.notEqual(slot.view, seed);
  const next: View = { ...DEFAULT_VIEW, diff: "full" };
  slot.setView(next);
  assert.equal(slot.view.diff, "full");
  next.diff = "none";
  assert.equal(slot.view.diff, "full", "the slot keeps its own copy");
});

Deno.test("LiveSlot: a prompt begins without an attempt; the last prompt and attempt stay set between prompts", () => {
  const slot = new LiveSlot(DEFAULT_VIEW);
  assert.equal(slot.promptId, null);
  assert.equal(slot.attempt, null);
  slot.beginPrompt("01");
  assert.deepEqual([slot.promptId, slot.attempt], ["01", null]);
  slot.beginAttempt("01", 1);
  slot.beginAttempt("01", 2);
  assert.deepEqual([slot.promptId, slot.attempt], ["01", 2]);
  // The steer gate reads them between prompts: they name the last prompt until the next one begins.
  slot.beginPrompt("02");
  assert.deepEqual([slot.promptId, slot.attempt], ["02", null]);
});

Deno.test("LiveSlot: endLog closes the open attempt log once; a run without a store root opens none", () => {
  const slot = new LiveSlot(DEFAULT_VIEW);
  const log = sink();
  slot.beginLog(log);
  assert.equal(slot.attemptLog, log);
  slot.endLog();
  slot.endLog();
  assert.equal(slot.attemptLog, null);
  assert.equal(log.closed, 1);
  slot.beginLog(null);
  assert.equal(slot.attemptLog, null);
});

Deno.test("LiveSlot: a live stream keeps its identity when a view change replaces its renderer", () => {
  const slot = new LiveSlot(DEFAULT_VIEW);
  slot.replaceRenderer(renderer("verbose")); // nothing live: no effect
  assert.equal(slot.live, null);
  const first = renderer("compact");
  const given = stream(first);
  const live = slot.beginStream(given);
  assert.equal(slot.live, live);
  const second = renderer("verbose");
  slot.replaceRenderer(second);
  assert.equal(slot.live, live, "a steer delivery waiting on this stream still recognises it");
  assert.equal(live.renderer, second);
  assert.equal(given.renderer, first, "the caller's object is not the slot's");
  slot.endStream();
  assert.equal(slot.live, null);
});

Deno.test("LiveSlot: pre-existing paths hold for one prompt; the interrupt flag never resets", () => {
  const slot = new LiveSlot(DEFAULT_VIEW);
  assert.deepEqual(slot.preexisting, {});
  slot.beginPreexisting({ "/repo": ["a.txt"] });
  assert.deepEqual(slot.preexisting, { "/repo": ["a.txt"] });
  slot.endPreexisting();
  assert.deepEqual(slot.preexisting, {});
  assert.equal(slot.interrupted, false);
  slot.interrupt();
  slot.interrupt();
  assert.equal(slot.interrupted, true);
});

Deno.test("RunScope: say/err/marker go to the slot's open attempt log, say is dropped from stdout under --json", () => {
  for (const json of [false, true]) {
    let out = "";
    let err = "";
    const io = {
      stdout: { write: (t: string) => void (out += t), isTerminal: false },
      stderr: { write: (t: string) => void (err += t), isTerminal: false },
      json,
      color: false,
    };
    const opts = { commit: "none", keepGoing: false, repairFirst: false, random: Math.random } as const;
    // say/err/marker read no packet: an empty one stands in.
    const env = new RunEnv({} as Packet, "", "run-1", StateStore.memory(), null, io, opts);
    const slot = new LiveSlot(DEFAULT_VIEW);
    const scope = new RunScope(env, slot);
    scope.say("before");
    const log = sink();
    slot.beginLog(log);
    scope.say("said");
    scope.err("erred");
    scope.marker("MARK");
    slot.endLog();
    scope.err("after");
    assert.equal(log.text, "said\nerred\nMARK\n");
    assert.equal(out, json ? "" : "before\nsaid\n");
    assert.equal(err, "erred\nafter\n");
    assert.equal(scope.runId, "run-1");
    assert.equal(scope.persist, true);
  }
});

/** Compile-time: outside the slot nothing assigns run state, and a context is never without its plane. */
function _readOnlyOutsideTheOwner(ctx: RunContext, scope: RunScope, plane: RunnerPlane): void {
  // @ts-expect-error the live stream begins and ends in the slot
  ctx.live = null;
  // @ts-expect-error the attempt log begins and ends in the slot
  ctx.attemptLog = null;
  // @ts-expect-error prompt and attempt begin in the slot
  ctx.promptId = null;
  // @ts-expect-error prompt and attempt begin in the slot
  ctx.attempt = null;
  // @ts-expect-error the pre-existing paths begin and end in the slot
  ctx.preexisting = {};
  // @ts-expect-error the interrupt flag is set by slot.interrupt()
  ctx.interrupted = true;
  // @ts-expect-error the view is set by the plane hooks through slot.setView()
  ctx.view = { ...DEFAULT_VIEW };
  // @ts-expect-error the plane is a constructor argument
  ctx.plane = plane;
  // @ts-expect-error the run id is fixed for the run
  ctx.runId = "x";
  // @ts-expect-error a scope has no plane: nothing built before the plane can reach it
  scope.plane;
  // @ts-expect-error the live stream's renderer is replaced through slot.replaceRenderer()
  ctx.live!.renderer = ctx.live!.renderer;
  // @ts-expect-error a context is built from a scope and an opened plane
  new RunContext(scope);
}
void _readOnlyOutsideTheOwner;
