/**
 * `prompt_runner replay [TARGET] [--run ID] [--prompt ID] [--attempt N] [--log-mode M] [--tool-output T]
 * [--thinking S] [--diff D] [--json]`: re-render a recorded run's events offline through the live renderers.
 */
import type { CommandContext, CommandSpec, FlagValues } from "./frame.ts";
import { type ResolvedTarget, resolveTarget, TARGET_FLAGS } from "./target.ts";
import { NotFoundError, UsageError } from "../errors.ts";
import type { Envelope, View } from "../events/mod.ts";
import { VIEW_VALUES } from "../events/types.ts";
import { storePaths } from "../store/paths.ts";
import { readInterventions } from "../control/interventions.ts";
import type { PromptText } from "../packet/mod.ts";
import { normalizePromptId } from "../util/ids.ts";
import { fileStamp, isRunId } from "../util/time.ts";
import { DEFAULT_DIFF_MAX_LINES, DEFAULT_TOOL_OUTPUT_MAX_LINES } from "../render/create.ts";
import { logHeaderPromptFile } from "../render/chrome.ts";
import { promptBodyAt } from "../packet/prompt_body.ts";
import { gitPathDiff } from "../render/git_diff_sync.ts";
import { loadFullWidth, needsFullWidthIn } from "../render/text_width.ts";
import { Replayer } from "../render/replay.ts";
import { eventStream, readEventFiles } from "../control/event_files.ts";

const VIEW_FLAGS = {
  "log-mode": "log_mode",
  "tool-output": "tool_output",
  thinking: "thinking",
  diff: "diff",
} as const;

/** The view settings given on the command line, or null when none was given (follow the recording). */
function viewFromFlags(flags: FlagValues): Partial<View> | null {
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

/**
 * Which files hold a run's stream (docs/reference/control-plane.md §5.2): its sealed segments, then the live
 * `events.jsonl` when it is that run's (or the snapshot names the run), else its archive. Nothing is read here.
 */
async function eventsFilesFor(storeRoot: string, runId: string | null): Promise<{ runId: string; files: string[] }> {
  const paths = storePaths(storeRoot);
  const found = await eventStream(storeRoot, runId);
  if (found.runId === null || found.files.length === 0) {
    if (runId !== null) throw new NotFoundError("no_run", `no recorded events for run "${runId}" in ${storeRoot}`);
    throw new NotFoundError("no_run", `no recorded run in ${storeRoot}: ${paths.events} is missing or empty`, {
      hints: ["start one with: prompt_runner run"],
    });
  }
  return { runId: found.runId, files: found.files };
}

/** Text written to stdout in 64 KiB batches; in `--json` mode each batch is a JSON string fragment. */
class OutputBatcher {
  #buf: string[] = [];
  #size = 0;
  constructor(private readonly write: (text: string) => void) {}
  add(text: string): void {
    if (text === "") return;
    this.#buf.push(text);
    this.#size += text.length;
    if (this.#size >= 65536) this.flush();
  }
  flush(): void {
    if (this.#size === 0) return;
    const text = this.#buf.join("");
    this.#buf = [];
    this.#size = 0;
    this.write(text);
  }
}

function positiveInt(flags: FlagValues, name: string): number | null {
  const v = flags[name];
  if (typeof v !== "string") return null;
  if (!/^\d+$/.test(v.trim()) || Number(v) < 1) {
    throw new UsageError("invalid_value", `--${name} takes an integer ≥ 1, got "${v}"`);
  }
  return Number(v);
}

// The header lookups below are synchronous: they run one prompt after another, and at an asynchronous round trip per
// file operation they were most of a long replay's time (0.6 ms a prompt at 2,500 prompts).

function existing(paths: string[]): string | null {
  for (const p of paths) {
    try {
      Deno.statSync(p);
      return p;
    } catch { /* try the next */ }
  }
  return null;
}

/** The first bytes of a file (a log's header), or "" when it does not read. */
function head(path: string): string {
  try {
    using file = Deno.openSync(path);
    const buf = new Uint8Array(LOG_HEAD_BYTES);
    let n = 0;
    while (n < buf.length) {
      const got = file.readSync(buf.subarray(n));
      if (got === null) break;
      n += got;
    }
    return new TextDecoder().decode(buf.subarray(0, n));
  } catch {
    return "";
  }
}

/** How much of a log is read for its header: the `Session:` line holds the tool list, so allow for a long one. */
const LOG_HEAD_BYTES = 16384;

/**
 * The prompt files a header shows, as they are now: the file the attempt's log names (its body read without decoding
 * the front matter, src/packet/prompt_body.ts), else — no log, or the file it names is gone — the packet's prompt file
 * of that id (src/packet/packet_files.ts, which loads the YAML parser, read once when first needed).
 */
class PromptFiles {
  #byId: Promise<Map<string, PromptText>> | null = null;
  readonly #rewrite: ((text: string) => string) | null;
  constructor(private readonly target: ResolvedTarget) {
    const remap = target.repoRemap;
    this.#rewrite = remap ? (t) => remap.rewriteText(t) : null;
  }

  async of(promptId: string, logPath: string | null): Promise<{ relFile: string; body: string } | null> {
    const named = logPath === null ? null : logHeaderPromptFile(head(logPath));
    const fromLog = named === null ? null : promptBodyAt(this.target.packetDir, named, this.#rewrite);
    return fromLog ?? (await (this.#byId ??= this.#packet())).get(promptId) ?? null;
  }

  /** The packet's prompt files by id; empty when the packet does not read. */
  async #packet(): Promise<Map<string, PromptText>> {
    try {
      const { promptTexts } = await import("../packet/packet_files.ts");
      const texts = await promptTexts(this.target.packetDir, this.#rewrite);
      return new Map(texts?.prompts.map((p) => [p.id, p]) ?? []);
    } catch {
      return new Map();
    }
  }
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

  const stream = await eventsFilesFor(target.storeRoot, runFlag);
  const runId = stream.runId;
  const filtered = promptId !== null || attempt !== null;
  // string-width loads only when some text needs it (src/render/text_width.ts): each header's paths and prompt body,
  // each event and steer text as it comes.
  const width = (value: unknown) => needsFullWidthIn(value) ? loadFullWidth() : undefined;
  await width(target.storeRoot);
  // Steer texts, log files and prompt files are looked up as their events arrive: nothing is collected up front.
  const steerTexts = new Map<string, string>();
  const steersRead = new Set<string>();
  const logs = storePaths(target.storeRoot).logs;
  const promptFiles = new PromptFiles(target);
  let current: { key: string; log: string | null; prompt: { relFile: string; body: string } | null } = {
    key: "",
    log: null,
    prompt: null,
  };

  const replayer = new Replayer({
    view,
    color: ctx.json ? false : ctx.color,
    tty: ctx.json ? false : ctx.stdout.isTerminal,
    diff_max_lines: DEFAULT_DIFF_MAX_LINES,
    tool_output_max_lines: DEFAULT_TOOL_OUTPUT_MAX_LINES,
    pathDiffFor: (cwd) => gitPathDiff(cwd),
    headerExtras: (id, at) => {
      const h = current.key === `${id}@${at}` ? current : null;
      return { promptFile: h?.prompt?.relFile ?? null, body: h?.prompt?.body ?? null, logFile: h?.log ?? null };
    },
    steerText: (request) => steerTexts.get(request) ?? null,
  });

  // `--json`: one document whose `output` is written as it is rendered; the header goes out with the first text,
  // so a filter that matches nothing still fails before anything is printed.
  let headerWritten = false;
  const header = () =>
    JSON.stringify({
      schema: "prompt_runner.replay/v1",
      run_id: runId,
      store_root: target.storeRoot,
      events_file: stream.files.at(-1) ?? null,
      events_files: stream.files,
    }).slice(0, -1) + ',"output":"';
  const out = new OutputBatcher((text) => {
    if (!ctx.json) return ctx.stdout.write(text);
    if (!headerWritten) ctx.stdout.write(header());
    headerWritten = true;
    ctx.stdout.write(JSON.stringify(text).slice(1, -1));
  });

  let matched = 0;
  for await (const item of readEventFiles(stream.files)) {
    const ev = item as unknown as Envelope;
    if (filtered && ev.type !== "run_opened") {
      // The launch view still applies when filtering.
      if ((promptId !== null && ev.prompt_id !== promptId) || (attempt !== null && ev.attempt !== attempt)) continue;
      matched++;
    }
    if (ev.type === "prompt_started" && ev.prompt_id !== null) {
      const t = Date.parse(ev.at);
      const stamps = Number.isNaN(t) ? [] : [t, t - 1000, t + 1000].map((ms) => fileStamp(new Date(ms)));
      const log = existing(stamps.map((s) => `${logs}/prompt-${ev.prompt_id}-${s}.log`));
      current = { key: `${ev.prompt_id}@${ev.at}`, log, prompt: await promptFiles.of(ev.prompt_id, log) };
      await width([log ?? "", current.prompt?.relFile ?? "", current.prompt?.body ?? ""]);
    }
    if (ev.type === "steer_accepted" && ev.prompt_id !== null && !steersRead.has(ev.prompt_id)) {
      steersRead.add(ev.prompt_id);
      for (const rec of await readInterventions(target.storeRoot, ev.prompt_id)) {
        if (typeof rec.request === "string" && typeof rec.text === "string") steerTexts.set(rec.request, rec.text);
      }
      await width([...steerTexts.values()]);
    }
    await width(ev);
    out.add(replayer.push(ev));
  }
  if (filtered && matched === 0) {
    const what = [promptId !== null ? `prompt ${promptId}` : null, attempt !== null ? `attempt ${attempt}` : null]
      .filter(Boolean).join(", ");
    throw new NotFoundError("prompt_not_found", `no recorded events for ${what} in run ${runId}`);
  }
  out.add(replayer.finish());
  out.flush();
  if (ctx.json) {
    if (!headerWritten) ctx.stdout.write(header());
    const tail = JSON.stringify({ view: replayer.view, events: replayer.events, prompts: replayer.prompts });
    ctx.stdout.write('",' + tail.slice(1) + "\n");
  }
  return 0;
}

/** The `replay` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [flags]",
  description: "Re-render a recorded run's events (its sealed segments control/events/<run_id>.<n>.jsonl, then " +
    "control/events.jsonl, or control/events/<run_id>.jsonl for an earlier run), streamed in flat memory, " +
    "through the live renderers, in any view. Without view flags the recorded launch view and its view changes " +
    "are followed. Path-only diffs at --diff full show the files' current git state, labelled as such.",
  flags: {
    run: { type: "string", value: "ID", description: "an earlier run id (default: the latest run)" },
    prompt: { type: "string", value: "ID", description: "only this prompt's events" },
    attempt: { type: "string", value: "N", description: "only this attempt's events" },
    "log-mode": { type: "string", value: "MODE", values: VIEW_VALUES.log_mode, description: "compact|verbose|studio" },
    "tool-output": {
      type: "string",
      value: "MODE",
      values: VIEW_VALUES.tool_output,
      description: "none|summary|preview|full",
    },
    thinking: { type: "string", value: "show|hide", description: "show or hide thinking" },
    diff: { type: "string", value: "MODE", values: VIEW_VALUES.diff, description: "none|stat|full" },
    ...TARGET_FLAGS,
  },
  run,
};
