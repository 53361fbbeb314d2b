/**
 * `control serve` against a real simulated run (`prompt_runner run` in its own process): the events stream resumes
 * without a gap or a repeat after the server restarts mid-run, and HTTPS with a certificate.
 */
import assert from "node:assert/strict";
import { slowPacket, tempDir } from "../support/fs.ts";
import { parseJsonOut, runCli, spawnCli } from "../support/cli.ts";
import { waitFor } from "../support/wait.ts";
import { type Frame, openStream, startServe } from "./_serve_support.ts";
import { writeDemoPacket } from "../control/_harness.ts";

Deno.test("control serve: after a server restart mid-run, Last-Event-ID resumes the events with no gap and no repeat, to the end", async () => {
  await using tmp = await tempDir();
  const packet = await slowPacket(tmp.path, 60, 50);
  const run = spawnCli(["run", packet]);
  let srv = await startServe([packet]);
  try {
    await waitFor(async () => {
      const s = await runCli(["control", "status", packet, "--json"]);
      return s.code === 0 && (parseJsonOut(s) as { session_live?: boolean }).session_live === true;
    }, { timeoutMs: 60_000, what: "a live session" });
    const seqs: number[] = [];
    const first = await openStream(srv.url, "/api/v1/targets/slow/events", srv.token!);
    for await (const f of first) {
      seqs.push(Number(f.id));
      if (f.data.type === "message_streamed") break;
    }
    const stopped = await srv.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    const last = seqs.at(-1)!;
    // The run goes on while no server listens.
    await waitFor(async () => {
      const s = await runCli(["control", "status", packet, "--json"]);
      return s.code === 0 && Number((parseJsonOut(s) as { last_seq?: number }).last_seq) > last + 3;
    }, { timeoutMs: 60_000, what: "events written while no server listens" });
    // A new server (new port, new token) takes over.
    srv = await startServe([packet]);
    const rest: Frame[] = [];
    let end: Record<string, unknown> | null = null;
    for await (
      const f of await openStream(srv.url, "/api/v1/targets/slow/events", srv.token!, {
        "last-event-id": String(last),
      })
    ) {
      if (f.event === "end") end = f.data;
      else rest.push(f);
    }
    const all = [...seqs, ...rest.map((f) => Number(f.id))];
    assert.deepEqual(all, all.map((_, i) => i + 1), "every seq once, in order, across the restart");
    assert.equal(rest.at(-1)!.data.type, "run_finished");
    assert.equal(end?.status, "completed");
    assert.equal((await run.status).code, 0);
  } finally {
    try {
      run.kill("SIGTERM");
    } catch { /* ended */ }
    await run.status;
    await srv.stop();
  }
});

Deno.test("control serve --cert/--key serves HTTPS; a plain client is refused the connection", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const key = `${tmp.path}/key.pem`, cert = `${tmp.path}/cert.pem`;
  const made = await new Deno.Command("openssl", {
    args: ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2"]
      .concat(["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
        .concat(["-addext", "basicConstraints=critical,CA:FALSE"])),
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.ok(made.success, new TextDecoder().decode(made.stderr));
  const srv = await startServe([dir, "--listen", "127.0.0.1:0", "--cert", cert, "--key", key]);
  const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(cert)] });
  try {
    assert.match(srv.url, /^https:\/\/127\.0\.0\.1:\d+\/$/);
    const r = await fetch(new URL("/api/v1/targets", srv.url), {
      client,
      headers: { authorization: `Bearer ${srv.token}` },
    });
    assert.equal(r.status, 200);
    const body = await r.json() as { targets: { id: string; status: string }[] };
    assert.deepEqual(body.targets.map((t) => [t.id, t.status]), [["demo", "no_run"]]);
    await assert.rejects(fetch(new URL("/api/v1/targets", srv.url.replace("https:", "http:"))));
  } finally {
    client.close();
    await srv.stop();
  }
});

Deno.test("control serve: clients of one live run (shared follower) each get every seq once, in order, whenever they join", async () => {
  await using tmp = await tempDir();
  const packet = await slowPacket(tmp.path, 80, 25);
  const run = spawnCli(["run", packet]);
  const srv = await startServe([packet]);
  try {
    await waitFor(async () => {
      const s = await runCli(["control", "status", packet, "--json"]);
      return s.code === 0 && (parseJsonOut(s) as { session_live?: boolean }).session_live === true;
    }, { timeoutMs: 60_000, what: "a live session" });
    const collect = async (frames: AsyncGenerator<Frame>, onFrame?: (n: number) => void) => {
      const ids: number[] = [];
      let end: Record<string, unknown> | null = null;
      for await (const f of frames) {
        if (f.event === "end") end = f.data;
        else if (f.id !== null) {
          ids.push(Number(f.id));
          onFrame?.(ids.length);
        }
      }
      return { ids, end };
    };
    let tenSeen: () => void = () => {};
    const ten = new Promise<void>((r) => tenSeen = r);
    const path = "/api/v1/targets/slow/events";
    const a = collect(await openStream(srv.url, path, srv.token!), (n) => n === 10 && tenSeen());
    await ten;
    const b = collect(await openStream(srv.url, path, srv.token!));
    const c = collect(await openStream(srv.url, `${path}?from=current`, srv.token!));
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    const whole = (ids: number[], from: number) => ids.every((s, i) => s === from + i);
    assert.ok(ra.ids.length > 20 && whole(ra.ids, 1), `client a: ${ra.ids.join(",")}`);
    assert.deepEqual(rb.ids, ra.ids, "a client joining from the start later gets the same stream");
    assert.ok(rc.ids.length > 0 && whole(rc.ids, rc.ids[0]!) && rc.ids.at(-1) === ra.ids.at(-1), "from=current");
    for (const r of [ra, rb, rc]) assert.equal(r.end?.status, "completed");
    assert.equal((await run.status).code, 0);
  } finally {
    try {
      run.kill("SIGTERM");
    } catch { /* ended */ }
    await run.status;
    await srv.stop();
  }
});
