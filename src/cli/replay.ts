/**
 * `prompt_runner replay [TARGET] [--run ID] [--prompt ID] [--attempt N] [--log-mode M] [--tool-output T]
 * [--thinking S] [--diff D] [--json]`: re-render a recorded run's events offline through the live renderers.
 */
import type { CommandContext, CommandSpec, FlagValues } from "./frame.ts";
import { resolveTarget } from "./target.ts";
import { TARGET_FLAGS } from "./selection_flags.ts";
import { NotFoundError, UsageError } from "../errors.ts";
import type { Envelope, View } from "../events/types.ts";
import { VIEW_VALUES } from "../events/types.ts";
import { storePaths } from "../store/paths.ts";
import { readInterventions } from "../control/interventions.ts";
import { loadPacket } from "../packet/load.ts";
import type { Packet } from "../packet/types.ts";
import { parseJsonLines, readTextOrNull } from "../util/fs.ts";
import { normalizePromptId } from "../util/ids.ts";
import { fileStamp, isRunId } from "../util/time.ts";
import { DEFAULT_DIFF_MAX_LINES, DEFAULT_TOOL_OUTPUT_MAX_LINES, gitPathDiff } from "../render/mod.ts";
import { replayEvents } from "../render/replay.ts";

const VIEW_FLAGS = {
  "log-mode": "log_mode",
  "tool-output": "tool_output",
  thinking: "thinking",
  diff: "diff",
} as const;

/** The view settings given on the command line, or null when none was given (follow the recording). */
export function viewFromFlags(flags: FlagValues): Partial<View> | null {
  const view: Record<string, string> = {};
  for (const [flag, key] of Object.entries(VIEW_FLAGS)) {
    const v = flags[flag];
    if (typeof v !== "string") continue;
    const allowed = VIEW_VALUES[key] as readonly string[];
    if (!allowed.includes(v)) {
      throw new UsageError(
        "invalid_value",
        `--${flag} does not take "${v}"; allowed: ${[...allowed].sort().join(", ")}`,
      );
    }
    view[key] = v;
  }
  return Object.keys(view).length ? (view as Partial<View>) : null;
}

/** Which events file holds a run: the live `events.jsonl` when it is that run's, else the archive. */
async function eventsFileFor(storeRoot: string, runId: string | null): Promise<{ path: string; events: Envelope[] }> {
  const paths = storePaths(storeRoot);
  const current = await readTextOrNull(paths.events);
  const currentEvents = current === null ? [] : parseJsonLines<Envelope>(current);
  if (runId === null) {
    if (currentEvents.length === 0) {
      throw new NotFoundError("no_run", `no recorded run in ${storeRoot}: ${paths.events} is missing or empty`, {
        hints: ["start one with: prompt_runner run"],
      });
    }
    return { path: paths.events, events: currentEvents };
  }
  if (currentEvents[0]?.run_id === runId) return { path: paths.events, events: currentEvents };
  const archived = await readTextOrNull(paths.archivedEvents(runId));
  if (archived === null) {
    throw new NotFoundError("no_run", `no recorded events for run "${runId}" in ${storeRoot}`);
  }
  return { path: paths.archivedEvents(runId), events: parseJsonLines<Envelope>(archived) };
}

function positiveInt(flags: FlagValues, name: string): number | null {
  const v = flags[name];
  if (typeof v !== "string") return null;
  if (!/^\d+$/.test(v.trim()) || Number(v) < 1) {
    throw new UsageError("invalid_value", `--${name} takes an integer ≥ 1, got "${v}"`);
  }
  return Number(v);
}

async function existing(paths: string[]): Promise<string | null> {
  for (const p of paths) {
    try {
      await Deno.stat(p);
      return p;
    } catch { /* try the next */ }
  }
  return null;
}

async function run(ctx: CommandContext): Promise<number> {
  const target = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: false });
  const view = viewFromFlags(ctx.flags);
  const runFlag = typeof ctx.flags.run === "string" ? ctx.flags.run : null;
  if (runFlag !== null && !isRunId(runFlag)) {
    throw new UsageError("invalid_value", `--run takes a run id such as 20261130T120501Z-7QK2MD, got "${runFlag}"`);
  }
  const promptFlag = typeof ctx.flags.prompt === "string" ? ctx.flags.prompt : null;
  const promptId = promptFlag === null ? null : normalizePromptId(promptFlag);
  if (promptFlag !== null && promptId === null) {
    throw new UsageError("invalid_value", `--prompt takes a prompt id such as 03, got "${promptFlag}"`);
  }
  const attempt = positiveInt(ctx.flags, "attempt");

  const file = await eventsFileFor(target.storeRoot, runFlag);
  let events = file.events;
  const runId = events[0]?.run_id ?? runFlag ?? "";
  if (promptId !== null || attempt !== null) {
    // The launch view still applies when filtering.
    const opened = events.filter((e) => e.type === "run_opened");
    events = events.filter((e) =>
      (promptId === null || e.prompt_id === promptId) && (attempt === null || e.attempt === attempt)
    );
    if (events.length === 0) {
      const what = [promptId !== null ? `prompt ${promptId}` : null, attempt !== null ? `attempt ${attempt}` : null]
        .filter(Boolean).join(", ");
      throw new NotFoundError("prompt_not_found", `no recorded events for ${what} in run ${runId}`);
    }
    events = [...opened, ...events];
  }

  let packet: Packet | null = null;
  try {
    packet = await loadPacket(target.packetDir);
  } catch {
    packet = null; // the packet may have changed since; headers then show what the events carry
  }
  const steerTexts = new Map<string, string>();
  const promptIds = [...new Set(events.map((e) => e.prompt_id).filter((id): id is string => id !== null))];
  for (const id of promptIds) {
    for (const rec of await readInterventions(target.storeRoot, id).catch(() => [])) {
      if (typeof rec.request === "string" && typeof rec.text === "string") steerTexts.set(rec.request, rec.text);
    }
  }
  const logs = storePaths(target.storeRoot).logs;
  const logFiles = new Map<string, string | null>();
  for (const ev of events) {
    if (ev.type !== "prompt_started" || ev.prompt_id === null) continue;
    const t = Date.parse(ev.at);
    const stamps = Number.isNaN(t) ? [] : [t, t - 1000, t + 1000].map((ms) => fileStamp(new Date(ms)));
    logFiles.set(
      `${ev.prompt_id}@${ev.at}`,
      await existing(stamps.map((s) => `${logs}/prompt-${ev.prompt_id}-${s}.log`)),
    );
  }

  const result = replayEvents(events, {
    view,
    color: ctx.json ? false : ctx.color,
    tty: ctx.json ? false : ctx.stdout.isTerminal,
    diff_max_lines: DEFAULT_DIFF_MAX_LINES,
    tool_output_max_lines: DEFAULT_TOOL_OUTPUT_MAX_LINES,
    pathDiffFor: (cwd) => gitPathDiff(cwd),
    headerExtras: (id, at) => {
      const prompt = packet?.prompts.find((p) => p.id === id) ?? null;
      const rel = prompt && packet && prompt.file.startsWith(packet.dir + "/")
        ? prompt.file.slice(packet.dir.length + 1)
        : prompt?.file ?? null;
      return { promptFile: rel, body: prompt?.body ?? null, logFile: logFiles.get(`${id}@${at}`) ?? null };
    },
    steerText: (request) => steerTexts.get(request) ?? null,
  });

  if (ctx.json) {
    ctx.stdout.write(
      JSON.stringify({
        schema: "prompt_runner.replay/v1",
        run_id: runId,
        store_root: target.storeRoot,
        events_file: file.path,
        view: result.view,
        events: result.events,
        prompts: result.prompts,
        output: result.output,
      }) + "\n",
    );
  } else {
    ctx.stdout.write(result.output);
  }
  return 0;
}

/** The `replay` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [flags]",
  description:
    "Re-render a recorded run's events (control/events.jsonl, or control/events/<run_id>.jsonl for an earlier run) " +
    "through the live renderers, in any view. Without view flags the recorded launch view and its view changes " +
    "are followed. Path-only diffs at --diff full show the files' current git state, labelled as such.",
  flags: {
    run: { type: "string", value: "ID", description: "an earlier run id (default: the latest run)" },
    prompt: { type: "string", value: "ID", description: "only this prompt's events" },
    attempt: { type: "string", value: "N", description: "only this attempt's events" },
    "log-mode": { type: "string", value: "MODE", description: "compact|verbose|studio" },
    "tool-output": { type: "string", value: "MODE", description: "none|summary|preview|full" },
    thinking: { type: "string", value: "show|hide", description: "show or hide thinking" },
    diff: { type: "string", value: "MODE", description: "none|stat|full" },
    ...TARGET_FLAGS,
  },
  run,
};
