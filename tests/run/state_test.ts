import assert from "node:assert/strict";
import { readState, StateStore } from "../../src/run/state.ts";
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
