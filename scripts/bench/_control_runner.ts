/**
 * The runner half of the control benchmark (scripts/bench/control.ts), run as its own process: takes the lease,
 * opens the plane and pumps a simulated provider through the real `pumpStream` loop of src/run/stream.ts — silent,
 * or streaming as fast as it can (no delay between events) — until stdin closes. Commands on stdin, one per line,
 * answered on stdout: `cpu` → `cpu <user+system µs so far>`, `count` → `count <provider events so far> <ms on this
 * process's clock>`. Prints `ready` once the plane is open and the stream has started.
 *
 * Usage: deno run -A scripts/bench/_control_runner.ts <storeRoot> <mode JSON>
 */
import process from "node:process";
import { acquireLease } from "../../src/store/lease.ts";
import { benchPlane } from "./_plane.ts";
import type { ProviderEvent } from "../../src/events/types.ts";
import { benchSession } from "./_session.ts";
import type { RunContext } from "../../src/run/context.ts";
import { pumpStream } from "../../src/run/stream.ts";

/** Options of one runner child. */
export interface RunnerMode {
  watch: boolean;
  pollMs: number;
  streaming: "silent" | "full";
}

/** The run id the child opens. */
export const RUN_ID = "20261130T120000Z-BENCH2";

async function main(storeRoot: string, mode: RunnerMode): Promise<void> {
  const lease = await acquireLease(storeRoot, { runId: RUN_ID, packetDir: storeRoot, argv: ["bench"] });
  const enc = new TextEncoder();
  const say = (line: string) => {
    const bytes = enc.encode(line + "\n");
    let off = 0;
    while (off < bytes.length) off += Deno.stdout.writeSync(bytes.subarray(off));
  };
  const plane = await benchPlane(storeRoot, {
    runId: RUN_ID,
    packetDir: storeRoot,
    watch: mode.watch,
    pollMs: mode.pollMs,
  });
  plane.transition({ stage: "session", prompt_id: "01", attempt: 1, stream: "initial", session_live: true });
  let running = true;
  let stop = () => {};
  const stopped = new Promise<void>((r) => (stop = r));
  let produced = 0;
  let started = () => {};
  const streaming = new Promise<void>((r) => (started = r));
  async function* provider(): AsyncGenerator<ProviderEvent> {
    yield { type: "run_started", data: { provider_session_id: "b", model: "simulated" } };
    started();
    if (mode.streaming === "full") {
      // As fast as the consumer takes them: every next() resolves without waiting on anything.
      while (running) {
        produced++;
        yield { type: "message_streamed", data: { delta: "token " } };
      }
    } else await stopped;
    yield { type: "run_completed", data: { stop_reason: "end_turn" } };
  }
  const session = benchSession(provider(), "b");
  // pumpStream only touches the plane when there is no live renderer and no --json output.
  const runCtx = { plane, io: { json: false }, live: null, attemptLog: null } as unknown as RunContext;
  const pumped = pumpStream(runCtx, session, {
    promptId: "01",
    attempt: 1,
    kind: "initial",
    provider: "simulated",
    sessionId: "b",
  }, null);
  await streaming;
  say("ready");
  let buf = "";
  for await (const text of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    buf += text;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const cmd = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (cmd === "cpu") {
        const u = process.cpuUsage();
        say(`cpu ${u.user + u.system}`);
      } else if (cmd === "count") say(`count ${produced} ${performance.now()}`);
      else say(`error unknown command ${JSON.stringify(cmd)}`);
    }
  }
  running = false;
  stop();
  await pumped;
  await plane.close("completed", null);
  await lease.release();
}

if (import.meta.main) await main(Deno.args[0]!, JSON.parse(Deno.args[1]!) as RunnerMode);
