/**
 * Records raw stdout of the real `claude` CLI over its stream-json input transport (docs/lanes.md, "Transports"),
 * driven against the loopback fake Anthropic server with stdin kept open, into
 * `tests/fixtures/lanes/claude/stream_json_<case>.jsonl` with `<case>.meta.json` (argv, the stdin lines written and
 * when, exit code, stderr, per-line timing). Cases: `text` (one text turn), `in_turn` (guidance written while a Bash
 * tool runs), `interrupt` (the interrupt control request, then guidance, while a Bash tool runs). Stdin is closed at
 * the first `result` line with nothing left unanswered — the rule the transport keeps. Scratch paths become
 * `/scratch/e2e`.
 *
 * Usage: deno run -A scripts/record_stream_json_fixtures.ts [--case NAME]… [--out DIR]
 */
import { startFakeAnthropic } from "../tests/support/fake_anthropic.ts";
import { claudeEnv, e2eBinary, removeScratch } from "../tests/support/e2e_env.ts";

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");
const SCRATCH = "/scratch/e2e";
let OUT = `${ROOT}/tests/fixtures/lanes`;

interface StreamCase {
  name: string;
  description: string;
  prompt: string;
  /** What to write when the first Bash `tool_use` line arrives. */
  onTool?: { interrupt: boolean; guidance: string };
}

const CASES: StreamCase[] = [
  {
    name: "text",
    description: "one text turn over stream-json input",
    prompt: "Say hello. [[e2e:text Hello there, operator.]]",
  },
  {
    name: "in_turn",
    description: "guidance written while a Bash tool runs (injected after the tool result)",
    prompt: "Run it. [[e2e:bash sleep 2]]",
    onTool: { interrupt: false, guidance: "Operator guidance: mind the tabs." },
  },
  {
    name: "interrupt",
    description: "interrupt control request then guidance while a Bash tool runs (a second turn in the same process)",
    prompt: "Run it. [[e2e:bash sleep 30]]",
    onTool: { interrupt: true, guidance: "Operator guidance: stop. [[e2e:text Stopped as asked.]]" },
  },
];

const ARGS = [
  "-p",
  "--input-format",
  "stream-json",
  "--replay-user-messages",
  "--output-format",
  "stream-json",
  "--verbose",
  "--include-partial-messages",
  "--permission-mode",
  "acceptEdits",
  "--allowedTools",
  "Bash",
];

const user = (text: string) => JSON.stringify({ type: "user", message: { role: "user", content: text } });
const interruptLine = JSON.stringify({
  type: "control_request",
  request_id: "rec-interrupt-1",
  request: { subtype: "interrupt" },
});

function scrub(text: string, root: string): string {
  const dashed = root.replaceAll("/", "-").replaceAll(".", "-");
  return text.replaceAll(root, SCRATCH).replaceAll(dashed, SCRATCH.replaceAll("/", "-"));
}

async function record(bin: string, c: StreamCase): Promise<Record<string, unknown>> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "rec-stream-json-" }));
  await using server = await startFakeAnthropic();
  try {
    await Deno.mkdir(`${root}/repo`, { recursive: true });
    const { env } = await claudeEnv(root, server.port);
    const t0 = performance.now();
    const ms = () => Math.round(performance.now() - t0);
    const child = new Deno.Command(bin, {
      args: ARGS,
      cwd: `${root}/repo`,
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
    const writer = child.stdin.getWriter();
    const stdin: { at_ms: number; line: string }[] = [];
    const write = async (line: string) => {
      stdin.push({ at_ms: ms(), line });
      await writer.write(new TextEncoder().encode(`${line}\n`));
    };
    const stderr = new Response(child.stderr).text();
    await write(user(c.prompt));
    const lines: string[] = [];
    const times: number[] = [];
    let unanswered = 0;
    let closed = false;
    let wrote = false;
    let buf = "";
    const hardStop = setTimeout(() => Deno.kill(-child.pid, "SIGKILL"), 90_000);
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        times.push(ms());
        const o = JSON.parse(line) as Record<string, unknown>;
        if (c.onTool && !wrote && o.type === "assistant" && JSON.stringify(o).includes('"name":"Bash"')) {
          wrote = true;
          unanswered++;
          if (c.onTool.interrupt) await write(interruptLine);
          await write(user(c.onTool.guidance));
        }
        if (o.type === "user" && o.isReplay === true && wrote && unanswered > 0) {
          const content = (o.message as Record<string, unknown> | undefined)?.content;
          if (content === c.onTool?.guidance) unanswered--;
        }
        if (o.type === "result" && unanswered === 0 && !closed) {
          closed = true;
          await writer.close();
        }
      }
    }
    clearTimeout(hardStop);
    const status = await child.status;
    const meta = {
      cli: "claude",
      case: `stream_json_${c.name}`,
      description: c.description,
      version: "2.1.197",
      argv: ["claude", ...ARGS],
      cwd: `${SCRATCH}/repo`,
      stdin,
      exit_code: status.code,
      signal: status.signal,
      stderr: await stderr,
      line_times_ms: times,
      requests: server.requests.filter((q) => q.method === "POST").length,
    };
    await Deno.mkdir(`${OUT}/claude`, { recursive: true });
    await Deno.writeTextFile(`${OUT}/claude/stream_json_${c.name}.jsonl`, scrub(lines.join("\n") + "\n", root));
    await Deno.writeTextFile(
      `${OUT}/claude/stream_json_${c.name}.meta.json`,
      scrub(JSON.stringify(meta, null, 2), root) + "\n",
    );
    return meta;
  } finally {
    await removeScratch(root);
  }
}

async function main(): Promise<number> {
  const only = new Set<string>();
  for (let i = 0; i < Deno.args.length; i++) {
    if (Deno.args[i] === "--case") only.add(Deno.args[++i] ?? "");
    if (Deno.args[i] === "--out") OUT = Deno.args[++i] ?? OUT;
  }
  const bin = e2eBinary("claude");
  if (bin === null) {
    console.error("SKIPPED: claude is not installed under tests/.tools; nothing recorded");
    return 1;
  }
  for (const c of CASES) {
    if (only.size && !only.has(c.name)) continue;
    const meta = await record(bin, c);
    console.log(
      `claude stream_json_${c.name.padEnd(10)} exit ${meta.exit_code} (${
        (meta.line_times_ms as number[]).length
      } lines)`,
    );
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main());
