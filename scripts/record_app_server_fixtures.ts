/**
 * Records raw stdout of the real `codex app-server` (JSON-RPC over stdio) driven by the lane's own conversation
 * (src/lanes/codex_app_server_channel.ts) against the loopback fake OpenAI server, into
 * `tests/fixtures/lanes/codex_app_server/<case>.jsonl` with `<case>.meta.json` (the lines we sent, exit code,
 * stderr, requests the fake saw). The cases reuse the names of the `codex exec` captures in
 * tests/fixtures/lanes/codex/ so tests can compare the canonical events of both transports for the same turn.
 *
 * Usage: deno run -A scripts/record_app_server_fixtures.ts [--case NAME]… [--out DIR]
 */
import { startFakeOpenAI } from "../tests/support/fake_openai.ts";
import { codexEnv, e2eBinary, removeScratch } from "../tests/support/e2e_env.ts";
import { AppServerChannel } from "../src/lanes/codex_app_server_channel.ts";
import { parseJsonObject } from "../src/lanes/_json.ts";
import type { SessionSpec } from "../src/lanes/types.ts";

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");
const SCRATCH = "/scratch/e2e";

interface CaseDef {
  name: string;
  prompt: string;
  files?: Record<string, string>;
  /** Once a command starts: steer it in-turn, or interrupt the turn and continue with the text. */
  onCommand?: { kind: "steer" | "interrupt"; text: string };
}

const CASES: CaseDef[] = [
  { name: "text", prompt: "Say hello. [[e2e:text Hello there, operator.]]" },
  { name: "write", prompt: "Create the file. [[e2e:write hello.txt hello world]]" },
  {
    name: "edit",
    prompt: "Edit the notes. [[e2e:edit notes.txt beta => BETA]]",
    files: { "notes.txt": "alpha\nbeta\ngamma\n" },
  },
  { name: "bash", prompt: "Run a command. [[e2e:bash echo hi from the shell]]" },
  { name: "thinking", prompt: "Think first. [[e2e:thinking]] [[e2e:text I thought about it.]]" },
  { name: "error_400", prompt: "Fail. [[e2e:error 400]]" },
  { name: "error_500", prompt: "Fail. [[e2e:error 500]]" },
  {
    name: "steer_tool",
    prompt: "Run a long command. [[e2e:bash sleep 2]]",
    onCommand: { kind: "steer", text: "Operator steer: also mention the tokenizer." },
  },
  {
    name: "interrupt_tool",
    prompt: "Run a long command. [[e2e:bash sleep 30]]",
    onCommand: { kind: "interrupt", text: "Operator steer: skip the slow command. [[e2e:text Steered.]]" },
  },
];

function spec(root: string, prompt: string): SessionSpec {
  return {
    runId: "rec",
    promptId: "01",
    attempt: 1,
    streamKind: "initial",
    prompt,
    cwd: `${root}/repo`,
    options: {
      provider: "codex",
      model: "gpt-5.5",
      reasoning_effort: null,
      permission_mode: "auto",
      allowed_tools: null,
      timeout_ms: 60_000,
      system_prompt: null,
      append_system_prompt: null,
      max_turns: null,
      provider_opts: {},
    },
    resumeSessionId: null,
    extraDirs: [],
    repos: {},
    env: {},
    simulate: null,
    simulatedStep: "attempt",
  };
}

async function recordCase(bin: string, def: CaseDef, out: string): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "pr-rec-app-server-" }));
  const server = await startFakeOpenAI({ logPath: `${root}/requests.jsonl`, slowTickMs: 100 });
  try {
    await Deno.mkdir(`${root}/repo`);
    for (const [p, c] of Object.entries(def.files ?? {})) await Deno.writeTextFile(`${root}/repo/${p}`, c);
    const cli = await codexEnv(root, server.port);
    const child = new Deno.Command(bin, {
      args: ["app-server"],
      cwd: `${root}/repo`,
      env: cli.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    const enc = new TextEncoder();
    const sent: string[] = [];
    const channel = new AppServerChannel(spec(root, def.prompt), {
      write: (line) => {
        sent.push(line);
        writer.write(enc.encode(`${line}\n`)).catch(() => {});
      },
      closeInput: () => void writer.close().catch(() => {}),
    });
    const stderr = new Response(child.stderr).text();
    const lines: string[] = [];
    let acted = false;
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    channel.open();
    let buf = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lines.push(line);
        const raw = parseJsonObject(line);
        if (raw === null) continue;
        const exec = channel.receive(raw);
        const started = exec.some((e) =>
          e["type"] === "item.started" && (e["item"] as Record<string, unknown>)["type"] === "command_execution"
        );
        if (def.onCommand && started && !acted) {
          acted = true;
          if (def.onCommand.kind === "steer") void channel.steer(def.onCommand.text);
          else void channel.interruptAndContinue(def.onCommand.text);
        }
      }
    }
    const status = await child.status;
    clearTimeout(timer);
    const scrub = (t: string) => t.replaceAll(root, SCRATCH);
    const requests = (await Deno.readTextFile(`${root}/requests.jsonl`)).split("\n").filter((l) => l !== "").length;
    await Deno.writeTextFile(`${out}/${def.name}.jsonl`, lines.map((l) => `${scrub(l)}\n`).join(""));
    const meta = {
      argv: ["codex", "app-server"],
      prompt: def.prompt,
      on_command: def.onCommand ?? null,
      sent: sent.map(scrub),
      exit_code: status.code,
      signal: status.signal,
      stderr: scrub(await stderr),
      requests,
    };
    await Deno.writeTextFile(`${out}/${def.name}.meta.json`, `${JSON.stringify(meta, null, 2)}\n`);
    console.log(`${def.name}: ${lines.length} lines, exit ${status.code}, ${requests} requests`);
  } finally {
    await server.close();
    await removeScratch(root);
  }
}

async function main(): Promise<number> {
  const bin = e2eBinary("codex");
  if (bin === null) {
    console.error("codex is not installed under tests/.tools (run scripts/install_e2e_tools.ts)");
    return 1;
  }
  let out = `${ROOT}/tests/fixtures/lanes/codex_app_server`;
  const only: string[] = [];
  for (let i = 0; i < Deno.args.length; i++) {
    if (Deno.args[i] === "--out") out = Deno.args[++i] ?? out;
    else if (Deno.args[i] === "--case") only.push(Deno.args[++i] ?? "");
  }
  await Deno.mkdir(out, { recursive: true });
  for (const def of CASES) if (only.length === 0 || only.includes(def.name)) await recordCase(bin, def, out);
  return 0;
}

if (import.meta.main) Deno.exit(await main());
