/** `control serve`: every endpoint against a live run, black-box (the command spawned with its own permissions). */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, startLivePlane, writeDemoPacket } from "../control/_harness.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { parseJsonLines } from "../../src/util/fs.ts";
import { call, openStream, startServe } from "./_serve_support.ts";
import { readFirstLine, spawnCli } from "../support/cli.ts";

async function logOf(dir: string) {
  return parseJsonLines(await Deno.readTextFile(storePaths(storeRootForPacket(dir)).log));
}

Deno.test("control serve: targets, snapshot, view, steer, log, requests and contract answer through the Control API", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  const srv = await startServe([dir]);
  try {
    assert.match(srv.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.match(srv.token!, /^[A-Za-z0-9_-]{43}$/);
    const t = srv.token;
    const me = await call(srv.url, "/api/v1/whoami", t);
    assert.equal(me.json.role, "amend");
    const targets = await call(srv.url, "/api/v1/targets", t);
    assert.equal(targets.status, 200);
    const rows = targets.json.targets as Record<string, unknown>[];
    assert.deepEqual(rows.map((r) => [r.id, r.kind, r.packet, r.run_id, r.status, r.prompt_id]), [
      ["demo", "packet", dir, RUN_ID, "running", "01"],
    ]);
    assert.equal(targets.headers.get("access-control-allow-origin"), null, "no CORS header");
    const snap = await call(srv.url, "/api/v1/targets/demo/snapshot", t);
    assert.equal(snap.status, 200);
    assert.equal(snap.json.run_id, RUN_ID);
    assert.equal((snap.json.lease as { state: string }).state, "up");

    const view = await call(srv.url, "/api/v1/targets/demo/view", t, { body: { log_mode: "studio", wait_ms: 10_000 } });
    assert.equal(view.status, 200, JSON.stringify(view.json));
    assert.equal(view.json.outcome, "applied");
    const steer = await call(srv.url, "/api/v1/targets/demo/steer", t, { body: { text: " look first ", wait_ms: 0 } });
    assert.ok(steer.status === 202 || steer.status === 200, JSON.stringify(steer.json));
    const request = String(steer.json.request);
    assert.equal(steer.json.poll, `/api/v1/targets/demo/requests/${encodeURIComponent(request)}`);
    // Poll the request until the run has applied it.
    let polled = await call(srv.url, String(steer.json.poll), t);
    for (let i = 0; i < 400 && polled.json.outcome === null; i++) {
      polled = await call(srv.url, String(steer.json.poll), t);
    }
    assert.equal(polled.json.outcome, "applied");

    const bad = await call(srv.url, "/api/v1/targets/demo/view", t, { body: { tool_output: "everything" } });
    assert.equal(bad.status, 400);
    assert.equal((bad.json.error as { code: string }).code, "invalid_view_value");
    const empty = await call(srv.url, "/api/v1/targets/demo/steer", t, { body: { text: "  " } });
    assert.equal((empty.json.error as { code: string }).code, "empty_steer");

    const log = await call(srv.url, "/api/v1/targets/demo/log", t);
    const entries = log.json.entries as Record<string, unknown>[];
    const author = me.json.name;
    assert.deepEqual(entries.map((e) => [e.command, e.outcome, e.author]), [
      ["set_view", "applied", author],
      ["steer", "accepted", author],
      ["steer", "applied", author],
      ["set_view", "rejected", author],
      ["steer", "rejected", author],
    ]);
    const contract = await call(srv.url, "/api/v1/targets/demo/contract/1", t);
    assert.equal(contract.status, 200, JSON.stringify(contract.json));
    assert.equal(contract.json.prompt_id, "01");
    const unknown = await call(srv.url, "/api/v1/targets/nosuch/snapshot", t);
    assert.deepEqual([unknown.status, (unknown.json.error as { code: string }).code], [404, "target_not_found"]);
    const noPrompt = await call(srv.url, "/api/v1/targets/demo/contract/9", t);
    assert.equal(noPrompt.status, 404);
  } finally {
    await live.stop();
    const end = await srv.stop();
    assert.equal(end.code, 0, end.stderr);
  }
  // After the run: a write is refused with the CLI's code and HTTP 409, and the refusal is on the record.
  const srv2 = await startServe([dir]);
  try {
    const late = await call(srv2.url, "/api/v1/targets/demo/steer", srv2.token, { body: { text: "too late" } });
    assert.deepEqual([late.status, (late.json.error as { code: string }).code], [409, "run_not_running"]);
    const last = (await logOf(dir)).at(-1)!;
    assert.deepEqual([last.command, last.outcome, last.params], ["steer", "rejected", { text: "too late" }]);
  } finally {
    await srv2.stop();
  }
});

Deno.test("control serve: the events stream carries seq as id, resumes after Last-Event-ID and ends with the final status", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  let liveUp = true;
  const srv = await startServe([dir]);
  try {
    const t = srv.token!;
    const first = await openStream(srv.url, "/api/v1/targets/demo/events", t);
    const seen: number[] = [];
    for await (const f of first) {
      assert.equal(f.id, String(f.data.seq));
      seen.push(Number(f.id));
      if (seen.length === 3) break;
    }
    assert.deepEqual(seen, [1, 2, 3]);
    await live.stop();
    liveUp = false;
    const resumed = await openStream(srv.url, "/api/v1/targets/demo/events", t, { "last-event-id": "3" });
    const rest: string[] = [];
    let end: Record<string, unknown> | null = null;
    for await (const f of resumed) {
      if (f.event === "end") end = f.data;
      else rest.push(`${f.id}:${f.data.type}`);
    }
    assert.equal(rest[0]!.split(":")[0], "4", "resumes right after the last id");
    assert.equal(rest.at(-1)!.split(":")[1], "run_finished");
    const ids = rest.map((r) => Number(r.split(":")[0]));
    assert.deepEqual(ids, ids.map((_, i) => 4 + i), "no gap, no repeat");
    assert.deepEqual(end, { run_id: RUN_ID, status: "completed", reason: null });
    // The log stream of the ended run: its entries, then the same end frame.
    const log = await openStream(srv.url, "/api/v1/targets/demo/log/stream", t);
    const last = (await Array.fromAsync(log)).at(-1)!;
    assert.deepEqual([last.event, last.data.status], ["end", "completed"]);
  } finally {
    if (liveUp) await live.stop();
    await srv.stop();
  }
});

Deno.test("control serve: SIGTERM with a client following a live run closes the stream and exits 0", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  const srv = await startServe([dir]);
  try {
    const frames = await openStream(srv.url, "/api/v1/targets/demo/events", srv.token!);
    assert.equal((await frames.next()).value?.id, "1");
    const stopped = await srv.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(stopped.stderr, "", "nothing on stderr (no runtime warning either)");
    // The stream ends (or breaks off): it never hangs on a stopped server.
    await Array.fromAsync(frames).catch(() => []);
  } finally {
    await live.stop();
    await srv.stop();
  }
});

Deno.test("control serve: a SIGTERM sent the moment its line is read stops it cleanly (exit 0), in JSON and text mode", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  // The line is printed only once SIGTERM is handled: a supervisor stopping the server as soon as it is ready must get
  // a shutdown, not the signal's default death (exit 143). Repeated, since the window it closes is short.
  for (let i = 0; i < 4; i++) {
    const srv = await startServe([dir]);
    const stopped = await srv.stop();
    assert.equal(stopped.code, 0, `JSON mode, round ${i}: ${stopped.stderr}`);
  }
  for (let i = 0; i < 2; i++) {
    const child = spawnCli(["control", "serve", dir]);
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const out = await readFirstLine(reader);
    assert.match(out, /^Serving /);
    child.kill("SIGTERM");
    const status = await child.status;
    await reader.cancel();
    await child.stderr.cancel();
    assert.equal(status.code, 0, `text mode, round ${i}`);
  }
});
