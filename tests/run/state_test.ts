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

Deno.test("StateStore.update() writes atomically, serialises concurrent updates, and replaces results", async () => {
  await using dir = await tempDir();
  const store = await StateStore.open(dir.path);
  await Promise.all(
    ["01", "02", "03"].map((id) =>
      store.updatePrompt(id, (p) => {
        p.status = "completed";
      })
    ),
  );
  const disk = JSON.parse(await Deno.readTextFile(`${dir.path}/state.json`));
  assert.deepEqual(Object.keys(disk.prompts).sort(), ["01", "02", "03"]);
  assert.ok((await Deno.readTextFile(`${dir.path}/state.json`)).endsWith("}\n"));
  const leftovers = [...Deno.readDirSync(dir.path)].filter((e) => e.name.endsWith(".tmp"));
  assert.deepEqual(leftovers, []);
  await store.updatePrompt("01", (p) => {
    p.result = { steer_count: 2, steered: true } as never;
  });
  await store.updatePrompt("01", (p) => {
    p.result = { steered: false } as never;
  });
  const again = JSON.parse(await Deno.readTextFile(`${dir.path}/state.json`));
  assert.deepEqual(again.prompts["01"].result, { steered: false });
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
