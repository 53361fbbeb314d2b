/** Helpers for lane tests: options and session specs, and a fake CLI that replays a recorded capture. */
import { DEFAULT_VIEW, type ProviderEvent } from "../../src/events/types.ts";
import type { ExecutionOptions } from "../../src/packet/types.ts";
import type { CliProfile, ParsedLine } from "../../src/lanes/profile.ts";
import { parseJsonObject } from "../../src/lanes/_json.ts";
import type { Lane, LaneSession, SessionSpec, StreamEnd } from "../../src/lanes/types.ts";
import { listProcesses, readProcCmdline } from "../../src/util/proc_tree.ts";

/** Directory of recorded lane captures. */
export const FIXTURES = new URL("../fixtures/lanes/", import.meta.url).pathname;

/** Effective options with test defaults. */
export function testOptions(over: Partial<ExecutionOptions> = {}): ExecutionOptions {
  return {
    provider: "claude",
    model: "",
    reasoning_effort: null,
    permission_mode: null,
    allowed_tools: null,
    timeout_ms: 600_000,
    system_prompt: null,
    append_system_prompt: null,
    max_turns: null,
    view: { ...DEFAULT_VIEW },
    diff_max_lines: 60,
    tool_output_max_lines: 200,
    log_meta: "none",
    events_mode: "compact",
    recovery: {
      resume_attempts: 2,
      max_steers: 3,
      interrupt_grace_ms: 5000,
      retry: { max_attempts: 2, base_delay_ms: 0, max_delay_ms: 0, jitter: false, class_attempts: {} },
      repair: {
        enabled: true,
        max_attempts: 1,
        trigger_on_nominal_success_with_failed_verifier: true,
        trigger_on_provider_failure_with_workspace_changes: true,
        trigger_on_retry_exhaustion_with_workspace_changes: true,
      },
    },
    provider_opts: {},
    ...over,
  };
}

/** A session spec with test defaults. */
export function testSpec(over: Partial<SessionSpec> = {}): SessionSpec {
  return {
    runId: "20261130T120501Z-7QK2MD",
    promptId: "01",
    attempt: 1,
    streamKind: "initial",
    prompt: "Do the thing.",
    cwd: "/tmp",
    options: testOptions(),
    resumeSessionId: null,
    extraDirs: [],
    repos: {},
    env: {},
    simulate: null,
    simulatedStep: "attempt",
    ...over,
  };
}

/** Lines of a recorded capture. */
export function fixtureLines(lane: string, name: string): string[] {
  return Deno.readTextFileSync(`${FIXTURES}${lane}/${name}.jsonl`).split("\n").filter((l) => l.trim() !== "");
}

/** Meta of a recorded capture. */
export function fixtureMeta(lane: string, name: string): Record<string, unknown> {
  return JSON.parse(Deno.readTextFileSync(`${FIXTURES}${lane}/${name}.meta.json`));
}

/** Feed lines straight through a profile's parser (no process). */
export function parseLines(
  profile: CliProfile,
  lines: string[],
  opts: { spec?: SessionSpec; interrupted?: boolean } = {},
): { events: ProviderEvent[]; sessionIds: string[] } {
  const parser = profile.createParser({
    spec: opts.spec ?? testSpec(),
    interruptReason: () => (opts.interrupted ? "interrupted_for_steer" : null),
  });
  const events: ProviderEvent[] = [];
  const sessionIds: string[] = [];
  for (const line of lines) {
    const raw = parseJsonObject(line);
    const parsed: ParsedLine = raw ? parser.json(raw) : { events: [] };
    if (parsed.sessionId) sessionIds.push(parsed.sessionId);
    events.push(...parsed.events);
  }
  return { events, sessionIds };
}

function shQuote(s: string): string {
  return `'${s.replaceAll("'", `'"'"'`)}'`;
}

/**
 * Write a fake CLI that records its argv, prints `lines`, and ends like the capture did. With `waitForInt`, it
 * prints the first `afterLine` lines, waits for SIGINT, then prints the rest.
 */
export async function writeReplayCli(dir: string, opts: {
  lines: string[];
  stderr?: string;
  exitCode?: number | null;
  signal?: string | null;
  afterLine?: number | null;
}): Promise<{ path: string; argvFile: string }> {
  const out = `${dir}/stdout.jsonl`;
  const head = `${dir}/head.jsonl`;
  const tail = `${dir}/tail.jsonl`;
  const errFile = `${dir}/stderr.txt`;
  const argvFile = `${dir}/argv.txt`;
  await Deno.writeTextFile(out, opts.lines.map((l) => l + "\n").join(""));
  const n = opts.afterLine ?? null;
  if (n !== null) {
    await Deno.writeTextFile(head, opts.lines.slice(0, n).map((l) => l + "\n").join(""));
    await Deno.writeTextFile(tail, opts.lines.slice(n).map((l) => l + "\n").join(""));
  }
  await Deno.writeTextFile(errFile, opts.stderr ?? "");
  const finish = [
    `cat ${shQuote(errFile)} >&2`,
    opts.signal ? `kill -${opts.signal.replace(/^SIG/, "")} $$` : "",
    `exit ${opts.exitCode ?? 0}`,
  ].filter((l) => l !== "").join("\n");
  const body = n === null ? [`cat ${shQuote(out)}`, finish] : [
    `finish() { cat ${shQuote(tail)}; ${finish.replaceAll("\n", "; ")}; }`,
    `trap finish INT`,
    `cat ${shQuote(head)}`,
    `while :; do sleep 0.05; done`,
  ];
  const script = [`#!/bin/bash`, `printf '%s\\n' "$@" > ${shQuote(argvFile)}`, ...body].join("\n") + "\n";
  const path = `${dir}/fake-cli`;
  await Deno.writeTextFile(path, script);
  await Deno.chmod(path, 0o755);
  return { path, argvFile };
}

/** Drain a session: all events, then its end. */
export async function drain(session: LaneSession): Promise<{ events: ProviderEvent[]; end: StreamEnd }> {
  const events: ProviderEvent[] = [];
  for await (const ev of session.events) events.push(ev);
  return { events, end: session.end() };
}

/** Start a lane whose executable is replaced by `cliPath` through `<lane>_opts.cli_path`. */
export function startWithCli(
  lane: Lane,
  cliPath: string,
  optsKey: string,
  over: Partial<SessionSpec> = {},
): LaneSession {
  const base = testSpec(over);
  const options = {
    ...base.options,
    provider_opts: { ...base.options.provider_opts, [optsKey]: { cli_path: cliPath } },
  };
  return lane.start({ ...base, options });
}

/** Event types in order, hidden ones marked with a trailing `~`. */
export function typesOf(events: ProviderEvent[]): string[] {
  return events.map((e) => (e.hidden ? `${e.type}~` : e.type));
}

/** Replay a recorded capture through a lane's real session, with a fake CLI standing in for the binary. */
export async function replayFixture(
  lane: Lane,
  optsKey: string,
  fixture: { lane: string; name: string },
  dir: string,
  opts: { interrupt?: boolean; spec?: Partial<SessionSpec> } = {},
): Promise<{ events: ProviderEvent[]; end: StreamEnd; session: LaneSession; argv: string[]; readyBeforeEnd: boolean }> {
  const meta = fixtureMeta(fixture.lane, fixture.name);
  const interrupt = meta["interrupt"] as { after_line: number; signal: string } | null;
  const useInt = opts.interrupt === true && interrupt !== null;
  const cli = await writeReplayCli(dir, {
    lines: fixtureLines(fixture.lane, fixture.name),
    stderr: String(meta["stderr"] ?? ""),
    exitCode: typeof meta["exit_code"] === "number" ? meta["exit_code"] : 1,
    signal: typeof meta["signal"] === "string" ? meta["signal"] : null,
    afterLine: useInt ? interrupt.after_line : null,
  });
  const session = startWithCli(lane, cli.path, optsKey, { cwd: dir, ...opts.spec });
  const drained = drain(session);
  let readyBeforeEnd = false;
  if (useInt) {
    await session.whenReady();
    readyBeforeEnd = session.isReady();
    await session.interrupt("interrupted_for_steer", 5000);
  }
  const { events, end } = await drained;
  const argv = Deno.readTextFileSync(cli.argvFile).split("\n").slice(0, -1);
  return { events, end, session, argv, readyBeforeEnd };
}

/** Visible events only. */
export function visible(events: ProviderEvent[]): ProviderEvent[] {
  return events.filter((e) => !e.hidden);
}

/** The events of one type, narrowed to it. */
export function eventsOfType<K extends ProviderEvent["type"]>(
  events: ProviderEvent[],
  type: K,
): Extract<ProviderEvent, { type: K }>[] {
  return events.filter((e): e is Extract<ProviderEvent, { type: K }> => e.type === type);
}

/** Every event of a session, in order; `onEvent` sees each as it arrives. */
export async function collect(s: LaneSession, onEvent?: (e: ProviderEvent) => void): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of s.events) {
    out.push(e);
    onEvent?.(e);
  }
  return out;
}

/** Pids of live processes whose command line contains `needle` (reads /proc; works under scoped permissions). */
export function pidsMatching(needle: string): number[] {
  return listProcesses()
    .filter((p) => p.pid !== Deno.pid && p.state !== "Z")
    .filter((p) => (readProcCmdline(p.pid) ?? "").includes(needle))
    .map((p) => p.pid);
}
