import assert from "node:assert/strict";
import { readState, rewriteDue, STATE_REWRITE_MS, STATE_REWRITE_SPACING, StateStore } from "../../src/run/state.ts";
import { RunFailedError } from "../../src/errors.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("readState() returns an empty document when state.json is missing", async () => {
  await using dir = await tempDir();
  const s = await readState(dir.path);
  assert.equal(s.schema, "prompt_runner.state/v1");
  assert.deepEqual(s.prompts, {});
});

Deno.test("readState() refuses invalid JSON with state_store_invalid and a move-aside hint", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/state.json`, "{not json");
  await assert.rejects(() => readState(dir.path), (e: unknown) => {
    assert.ok(e instanceof RunFailedError);
    assert.equal(e.code, "state_store_invalid");
    assert.equal(e.exit, 1);
    assert.match(e.message, /state\.json/);
    assert.match(e.hints.join("\n"), /move it aside/);
    return true;
  });
});

Deno.test("readState() names the field when the shape is wrong", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/state.json`, JSON.stringify({ prompts: { "01": { attempts: 3 } } }));
  await assert.rejects(() => readState(dir.path), /prompts\.01\.attempts/);
  await Deno.writeTextFile(`${dir.path}/state.json`, JSON.stringify({ schema: "other/v9" }));
  await assert.rejects(() => readState(dir.path), /"schema"/);
});

Deno.test("StateStore.updatePrompt() serialises concurrent updates, appends them pending, and flush() writes state.json whole", async () => {
  await using dir = await tempDir();
  const store = await StateStore.open(dir.path);
  await Promise.all(
    ["01", "02", "03"].map((id) =>
      store.updatePrompt(id, (p) => {
        p.status = "completed";
      })
    ),
  );
  // Not rewritten yet (the interval has not passed), but on disk: the pending lines, merged by every reader.
  assert.equal(await Deno.readTextFile(`${dir.path}/state.json`).catch(() => null), null);
  assert.equal((await Deno.readTextFile(`${dir.path}/state.pending.jsonl`)).trim().split("\n").length, 3);
  assert.deepEqual(Object.keys((await readState(dir.path)).prompts).sort(), ["01", "02", "03"]);
  await store.updatePrompt("01", (p) => {
    p.result = { steer_count: 2, steered: true } as never;
  });
  await store.updatePrompt("01", (p) => {
    p.result = { steered: false } as never;
  });
  assert.deepEqual((await readState(dir.path)).prompts["01"]!.result, { steered: false } as never);
  await store.flush();
  const disk = JSON.parse(await Deno.readTextFile(`${dir.path}/state.json`));
  assert.deepEqual(Object.keys(disk.prompts).sort(), ["01", "02", "03"]);
  assert.deepEqual(disk.prompts["01"].result, { steered: false });
  assert.ok((await Deno.readTextFile(`${dir.path}/state.json`)).endsWith("}\n"));
  assert.equal(await Deno.readTextFile(`${dir.path}/state.pending.jsonl`), "");
  const leftovers = [...Deno.readDirSync(dir.path)].filter((e) => e.name.endsWith(".tmp"));
  assert.deepEqual(leftovers, []);
});

Deno.test("StateStore rewrites state.json once the interval has passed and empties the pending file", async () => {
  await using dir = await tempDir();
  const store = await StateStore.open(dir.path, { rewriteMs: 0 });
  await store.updatePrompt("01", (p) => {
    p.status = "completed";
  });
  assert.equal(JSON.parse(await Deno.readTextFile(`${dir.path}/state.json`)).prompts["01"].status, "completed");
  assert.equal(await Deno.readTextFile(`${dir.path}/state.pending.jsonl`), "");
});

Deno.test("rewriteDue(): the interval, or the spacing times the last rewrite's duration when that is longer", () => {
  assert.equal(STATE_REWRITE_MS, 2000);
  assert.equal(STATE_REWRITE_SPACING, 50);
  // A small document: the 2 s interval decides.
  assert.equal(rewriteDue(1999, 5, 2000), false);
  assert.equal(rewriteDue(2000, 5, 2000), true);
  // 10,000 prompts' document took 66 ms: the next waits 3.3 s, so rewrites stay under 1/50 of the run.
  assert.equal(rewriteDue(3299, 66, 2000), false);
  assert.equal(rewriteDue(3300, 66, 2000), true);
  assert.equal(rewriteDue(100, 1, 0, 0), true);
});

Deno.test("StateStore spaces rewrites by their own duration: a second change soon after stays pending", async () => {
  await using dir = await tempDir();
  // Any real rewrite takes more than a microsecond, so a spacing of 1e9 holds the next one back for over 15 minutes.
  const store = await StateStore.open(dir.path, { rewriteMs: 0, spacing: 1e9 });
  await store.updatePrompt("01", (p) => {
    p.status = "completed";
  });
  assert.equal(JSON.parse(await Deno.readTextFile(`${dir.path}/state.json`)).prompts["01"].status, "completed");
  assert.equal(await Deno.readTextFile(`${dir.path}/state.pending.jsonl`), "");
  await store.updatePrompt("02", (p) => {
    p.status = "completed";
  });
  assert.deepEqual(Object.keys(JSON.parse(await Deno.readTextFile(`${dir.path}/state.json`)).prompts), ["01"]);
  assert.equal((await Deno.readTextFile(`${dir.path}/state.pending.jsonl`)).trim().split("\n").length, 1);
  assert.deepEqual(Object.keys((await readState(dir.path)).prompts).sort(), ["01", "02"]);
  await store.flush(); // the run's end writes it whole whatever the spacing
  assert.deepEqual(Object.keys(JSON.parse(await Deno.readTextFile(`${dir.path}/state.json`)).prompts).sort(), [
    "01",
    "02",
  ]);
});

Deno.test("a dead runner's pending entries are read back over state.json; a torn last line is skipped", async () => {
  await using dir = await tempDir();
  const first = await StateStore.open(dir.path, { rewriteMs: 0 });
  await first.updatePrompt("01", (p) => {
    p.status = "completed";
  });
  const dead = await StateStore.open(dir.path); // never flushed: as if killed -9
  await dead.updatePrompt("01", (p) => {
    p.status = "failed";
  });
  await dead.updatePrompt("02", (p) => {
    p.status = "running";
  });
  dead.close(); // its handle goes with it; nothing more is written
  await Deno.writeTextFile(`${dir.path}/state.pending.jsonl`, '{"id":"03","entry":{"sta', { append: true });
  const back = await StateStore.open(dir.path);
  assert.equal(back.current.prompts["01"]!.status, "failed");
  assert.equal(back.current.prompts["02"]!.status, "running");
  assert.equal(back.current.prompts["03"], undefined);
  // The next append starts on a line of its own: the torn line never swallows it.
  await back.updatePrompt("04", (p) => {
    p.status = "running";
  });
  assert.equal((await readState(dir.path)).prompts["04"]!.status, "running");
  await back.flush(); // folds them into state.json
  const disk = JSON.parse(await Deno.readTextFile(`${dir.path}/state.json`));
  assert.equal(disk.prompts["01"].status, "failed");
  assert.equal(disk.prompts["02"].status, "running");
  assert.equal(await Deno.readTextFile(`${dir.path}/state.pending.jsonl`), "");
});

Deno.test("StateStore.updateAttempt() changes the attempt with that run id and number", async () => {
  await using dir = await tempDir();
  const store = await StateStore.open(dir.path);
  await store.updatePrompt("01", (p) => {
    for (const [run, n] of [["A", 1], ["B", 1]] as const) {
      p.attempts.push({
        run_id: run,
        attempt: n,
        mode: "run",
        status: "running",
        started_at: "x",
        provider: "simulated",
        model: null,
        session_id: null,
        streams: [],
        log_file: null,
        events_file: null,
      });
    }
  });
  await store.updateAttempt("01", "A", 1, (a) => {
    a.status = "failed";
  });
  assert.deepEqual(store.attempts("01").map((a) => `${a.run_id}:${a.status}`), ["A:failed", "B:running"]);
});
