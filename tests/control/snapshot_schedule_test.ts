/**
 * The snapshot's coalescing schedule (docs/reference/control-plane.md §4.4), on a clock driven by hand: a prompt's own
 * writes (live, ended, boundary) are never joined by a timer write, and a change still reaches the file within about
 * one window when nothing else writes it.
 */
import assert from "node:assert/strict";
import { type ScheduleClock, SnapshotSchedule, type TimerHandle } from "../../src/control/snapshot_schedule.ts";

/** A clock that moves only when told; due timers run in order as it passes them. */
class HandClock implements ScheduleClock {
  t = 0;
  #next = 1;
  #timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.t;
  }
  after(fn: () => void, ms: number): TimerHandle {
    const id = this.#next++;
    this.#timers.set(id, { at: this.t + ms, fn });
    return id as unknown as TimerHandle;
  }
  clear(handle: TimerHandle): void {
    this.#timers.delete(handle as unknown as number);
  }
  /** Move to `to`, running every timer due on the way at its own instant. */
  advance(to: number): void {
    for (;;) {
      const due = [...this.#timers.entries()].filter(([, v]) => v.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
    }
    this.t = to;
  }
}

/** A schedule whose writes are recorded with their instants. */
function setup(windowMs = 50) {
  const clock = new HandClock();
  const writes: { at: number; by: "owner" | "timer" }[] = [];
  let byOwner = false;
  const schedule = new SnapshotSchedule(windowMs, () => {
    writes.push({ at: clock.t, by: byOwner ? "owner" : "timer" });
    schedule.wrote();
  }, clock);
  const ownerWrite = () => {
    byOwner = true;
    writes.push({ at: clock.t, by: "owner" });
    schedule.wrote();
    byOwner = false;
  };
  return { clock, writes, schedule, ownerWrite };
}

Deno.test("prompts shorter than the window make only their own writes: the timer re-arms instead of writing", () => {
  const { clock, writes, schedule, ownerWrite } = setup();
  ownerWrite(); // plane open
  for (let p = 0; p < 20; p++) {
    const t0 = 1 + p * 12;
    clock.advance(t0);
    schedule.transition(); // the next prompt and attempt: coalesced
    clock.advance(t0 + 1);
    schedule.changed(); // events
    ownerWrite(); // session live
    clock.advance(t0 + 4);
    schedule.changed();
    ownerWrite(); // session ended
    clock.advance(t0 + 6);
    schedule.transition(); // verifying
    schedule.changed();
    clock.advance(t0 + 10);
    assert.ok(schedule.dirty);
    ownerWrite(); // the boundary (sync)
    schedule.changed(); // events after the boundary
  }
  assert.equal(
    writes.filter((w) => w.by === "timer").length,
    0,
    JSON.stringify(writes.filter((w) => w.by === "timer")),
  );
  assert.equal(writes.length, 1 + 20 * 3);
  assert.ok(schedule.armed, "a change is still pending: the timer stays armed");
  const last = writes.at(-1)!.at;
  clock.advance(last + 49);
  assert.equal(writes.length, 61, "not before a whole window without a write");
  clock.advance(last + 50);
  assert.deepEqual(writes.at(-1), { at: last + 50, by: "timer" }, "then the pending change is written");
  assert.ok(!schedule.armed && !schedule.dirty);
});

Deno.test("a change nothing else writes reaches the file within one window of it", () => {
  const { clock, writes, schedule, ownerWrite } = setup();
  ownerWrite();
  clock.advance(1);
  schedule.changed(); // arms for 51
  clock.advance(30);
  ownerWrite(); // takes that change
  clock.advance(31);
  schedule.changed(); // the timer (still armed) fires at 51, re-arms for 80
  clock.advance(79);
  assert.equal(writes.length, 2);
  clock.advance(200);
  assert.deepEqual(writes.map((w) => w.at), [0, 30, 80]);
  assert.ok(80 - 31 <= 50);
});

Deno.test("a transition is written at once after a quiet window, coalesced within one", () => {
  const { clock, writes, schedule, ownerWrite } = setup();
  ownerWrite();
  clock.advance(10);
  schedule.transition();
  assert.equal(writes.length, 1, "10 ms after a write: coalesced");
  assert.ok(schedule.dirty && schedule.armed);
  clock.advance(60);
  assert.deepEqual(writes.map((w) => w.at), [0, 60], "the timer armed at 10 writes at 60");
  clock.advance(200);
  schedule.transition();
  assert.deepEqual(writes.map((w) => w.at), [0, 60, 200], "a window after the last write: written at once");
  assert.ok(!schedule.dirty);
});

Deno.test("stop() cancels the timer and ignores later changes", () => {
  const { clock, writes, schedule, ownerWrite } = setup();
  ownerWrite();
  schedule.changed();
  schedule.stop();
  schedule.changed();
  schedule.transition();
  clock.advance(1000);
  assert.equal(writes.length, 1);
  assert.ok(!schedule.armed);
});
