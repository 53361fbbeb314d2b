/**
 * Steer → the model request that carries it, per lane × transport × kind (docs/lanes.md "Transports"), with the real
 * CLI against an in-process loopback fake model server. Each sample starts a session whose model reply streams slowly
 * (`[[e2e:slow 20]]`), waits until the reply is streaming and the session is ready, then delivers a uniquely marked
 * steer and measures until the fake receives a request containing the mark (one clock: this process):
 * - `exec` `interrupt_and_resume`: SIGINT the process, wait for the stream's end, start `exec resume` with the text;
 * - `app_server` `in_turn`: `turn/steer` into the running turn;
 * - `app_server` `interrupt_in_process`: `turn/interrupt`, then `turn/start` on the same thread.
 * Median of 5 samples each (the kinds alternate within a round). Rows per lane: codex here; a lane's rows are skipped
 * (never recorded) when its CLI is not installed.
 */
import { codexLane } from "../../src/lanes/codex.ts";
import type { Lane, LaneSession, SessionSpec } from "../../src/lanes/types.ts";
import type { ProviderEvent } from "../../src/events/types.ts";
import { codexEnv, e2eBinary, removeScratch } from "../../tests/support/e2e_env.ts";
import { type InputItem, openaiItemText, startFakeOpenAI } from "../../tests/support/fake_openai.ts";
import type { FakeServer, LoggedRequest } from "../../tests/support/fake_server_common.ts";
import { initRepo } from "../../tests/support/fs.ts";
import { BenchSkip, check, median, MIN_REPEATS } from "./_harness.ts";

type Kind = "interrupt_and_resume" | "in_turn" | "interrupt_in_process";

/** One lane × transport × kind row. */
interface Row {
  key: string;
  transport: "exec" | "app_server";
  kind: Kind;
}

const CODEX_ROWS: Row[] = [
  { key: "codex_exec_interrupt_and_resume", transport: "exec", kind: "interrupt_and_resume" },
  { key: "codex_app_server_in_turn", transport: "app_server", kind: "in_turn" },
  { key: "codex_app_server_interrupt_in_process", transport: "app_server", kind: "interrupt_in_process" },
];

function inputHas(r: LoggedRequest, text: string): boolean {
  const body = r.body !== null && typeof r.body === "object" ? r.body as Record<string, unknown> : {};
  const input = body["input"];
  return Array.isArray(input) && (input as InputItem[]).some((i) => openaiItemText(i).includes(text));
}

async function drain(s: LaneSession): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of s.events) out.push(e);
  return out;
}

/** Everything one codex sample needs: a scratch repo and CODEX_HOME, options selecting the transport. */
async function codexSpec(root: string, port: number, bin: string, row: Row, prompt: string): Promise<SessionSpec> {
  const repo = `${root}/repo`;
  await initRepo(repo, { "notes.txt": "alpha\n" });
  const env = await codexEnv(root, port);
  return {
    runId: "bench",
    promptId: "01",
    attempt: 1,
    streamKind: "initial",
    prompt,
    cwd: repo,
    options: {
      provider: "codex",
      model: "gpt-5.5",
      reasoning_effort: null,
      permission_mode: "auto",
      allowed_tools: null,
      timeout_ms: 120_000,
      system_prompt: null,
      append_system_prompt: null,
      max_turns: null,
      provider_opts: { codex_opts: { cli_path: bin, app_server: row.transport === "app_server" } },
    },
    resumeSessionId: null,
    extraDirs: [],
    repos: {},
    env: env.env,
    simulate: null,
    simulatedStep: "attempt",
  };
}

/** One sample: ms from the steer's delivery call to the model request carrying it. */
async function sample(lane: Lane, server: FakeServer, bin: string, row: Row): Promise<number> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "pr-bench-steer-" }));
  try {
    const mark = `BENCH-${crypto.randomUUID().slice(0, 8)}`;
    const spec = await codexSpec(root, server.port, bin, row, `Work slowly ${mark}. [[e2e:slow 20]]`);
    const s = lane.start(spec);
    check(s.transport.name === row.transport, `${row.key}: the session runs over ${s.transport.name}`);
    const drained = drain(s);
    await server.waitForRequest((r) => inputHas(r, mark), 60_000);
    await s.whenReady();
    check(s.isReady(), `${row.key}: the session became ready`);
    const steer = `Operator ${mark}-STEER: finish now. [[e2e:text Steered.]]`;
    const t0 = performance.now();
    let resumed: Promise<ProviderEvent[]> | null = null;
    let next: LaneSession | null = null;
    if (row.kind === "interrupt_and_resume") {
      await s.interrupt("interrupted_for_steer", 5000);
      await drained;
      check(s.sessionId !== null, `${row.key}: the interrupted session has an id`);
      next = lane.start({ ...spec, prompt: steer, resumeSessionId: s.sessionId, streamKind: "steer" });
      resumed = drain(next);
    } else if (row.kind === "in_turn") {
      void s.sendInTurn!(steer);
    } else {
      void s.interruptInProcess!(steer);
    }
    const hit = await server.waitForRequest((r) => inputHas(r, `${mark}-STEER`), 60_000);
    const ms = performance.now() - t0;
    check(inputHas(hit, `Work slowly ${mark}`), `${row.key}: the steered request continues the same history`);
    const events = resumed ? await resumed : await drained;
    const end = (next ?? s).end();
    check(end.kind === "ok", `${row.key}: the session ended ${JSON.stringify(end)}`);
    check(
      events.some((e) => e.type === "message_received" && e.data.content === "Steered."),
      `${row.key}: the model answered the steer`,
    );
    return ms;
  } finally {
    await removeScratch(root);
  }
}

/** Run the rows of the codex lane. */
async function codexRows(out: Record<string, number | string>): Promise<void> {
  const bin = e2eBinary("codex");
  if (bin === null) throw new BenchSkip("codex is not installed (scripts/install_e2e_tools.ts)");
  await using server = await startFakeOpenAI({ slowTickMs: 100 });
  const samples = new Map<string, number[]>(CODEX_ROWS.map((r) => [r.key, []]));
  for (let round = 0; round < MIN_REPEATS; round++) {
    for (const row of CODEX_ROWS) samples.get(row.key)!.push(await sample(codexLane, server, bin, row));
  }
  for (const row of CODEX_ROWS) out[`${row.key}_ms`] = median(samples.get(row.key)!);
  const base = out["codex_exec_interrupt_and_resume_ms"] as number;
  out["codex_app_server_in_turn_vs_exec_ratio"] = (out["codex_app_server_in_turn_ms"] as number) / base;
  out["codex_app_server_interrupt_vs_exec_ratio"] = (out["codex_app_server_interrupt_in_process_ms"] as number) / base;
  out["repeats"] = MIN_REPEATS;
}

/** Run the steer-transport benchmark. */
export async function bench(): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = {};
  await codexRows(out);
  return out;
}
