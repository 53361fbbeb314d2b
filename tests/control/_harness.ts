/** Test harness for the control plane: fake runner hooks, a plane opened on a temp store root, file helpers. */
import { DEFAULT_VIEW, type View } from "../../src/events/types.ts";
import type { AcceptedSteer, PlaneHooks } from "../../src/control/plane_types.ts";
import { openPlane, type OpenPlaneOptions } from "../../src/control/plane.ts";
import { storePaths } from "../../src/store/paths.ts";
import { parseJsonLines } from "../../src/util/fs.ts";

/** Fake hooks that record every call; the steer gate is mutable. */
export class FakeHooks implements PlaneHooks {
  views: { view: View; changed: Partial<View> }[] = [];
  accepted: AcceptedSteer[] = [];
  notices: { text: string; level: string }[] = [];
  gate = { promptRunning: true, sessionLive: true };
  applyView(view: View, changed: Partial<View>): void {
    this.views.push({ view, changed });
  }
  steerGate() {
    return { ...this.gate };
  }
  steerAccepted(steer: AcceptedSteer): void {
    this.accepted.push(steer);
  }
  notice(text: string, level: "info" | "warning" | "error"): void {
    this.notices.push({ text, level });
  }
}

/** A run id for tests. */
export const RUN_ID = "20261130T120501Z-7QK2MD";

/** Open a plane on `storeRoot` with fake hooks (watcher off unless asked). */
export async function testPlane(storeRoot: string, over: Partial<OpenPlaneOptions> = {}) {
  const hooks = over.hooks instanceof FakeHooks ? over.hooks : new FakeHooks();
  const plane = await openPlane({
    storeRoot,
    runId: RUN_ID,
    resumed: false,
    packet: { name: "demo", dir: `${storeRoot}/..` },
    workspace: null,
    view: { ...DEFAULT_VIEW },
    selectedCount: 2,
    maxSteers: 3,
    watch: false,
    pollMs: 0,
    ...over,
    hooks,
  });
  return { plane, hooks, paths: storePaths(storeRoot) };
}

/** Drop a raw request file (bypassing the API) and return its name. */
export async function dropRaw(storeRoot: string, name: string, body: string | Uint8Array): Promise<string> {
  const p = storePaths(storeRoot);
  const tmp = `${p.controlTmp}/${name}`;
  if (typeof body === "string") await Deno.writeTextFile(tmp, body);
  else await Deno.writeFile(tmp, body);
  await Deno.rename(tmp, `${p.requests}/${name}`);
  return name;
}

let n = 0;
/** A valid request file name. */
export function reqName(): string {
  n += 1;
  return `20261130T120701.${String(100000 + n).padStart(6, "0")}Z-999-${String(n).padStart(6, "0")}-abcd.json`;
}

/** A request body. */
export function body(command: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    schema: "prompt_runner.control_request/v1",
    command,
    params,
    run_id: RUN_ID,
    author: "ada",
    issued_at: new Date().toISOString(),
    ...extra,
  });
}

/** Every decodable line of a JSON Lines file (missing → []). */
export async function lines(path: string): Promise<Record<string, unknown>[]> {
  try {
    return parseJsonLines(await Deno.readTextFile(path));
  } catch {
    return [];
  }
}

/** Names in a directory. */
export async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

/** Read a JSON document. */
export async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(path));
}

/** The prompt file of {@link writeDemoPacket}, byte for byte. */
export const PROMPT_01 = `---
id: 1
name: First
# a comment before verify
verify:
  files_exist:
    - README.md
  contains:
    - path: docs/guide.md
      text: "## Usage"

# a comment that belongs to commit
commit: "feat: first"
---
# First

Body text with verify: in it.
`;

/** Write a small packet (repo `app`, prompts 01 and 02) under `root`; returns the packet dir. */
export async function writeDemoPacket(root: string): Promise<string> {
  const dir = `${root}/demo`;
  await Deno.mkdir(`${dir}/prompts`, { recursive: true });
  await Deno.mkdir(`${dir}/app`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/prompt_runner_packet.md`,
    `---\nname: demo\nprovider: simulated\nrepos:\n  - name: app\n    path: ./app\n    default: true\n---\n# Demo\n`,
  );
  await Deno.writeTextFile(`${dir}/prompts/01_first.prompt.md`, PROMPT_01);
  await Deno.writeTextFile(`${dir}/prompts/02_second.prompt.md`, `---\nid: 2\nname: Second\n---\n# Second\n`);
  return await Deno.realPath(dir);
}

/** A live stand-in runner process (tests/control/_live_plane.ts) on a packet's store root. */
export async function startLivePlane(
  packetDir: string,
  runId = RUN_ID,
  ending: "completed" | "failed" | "crash" = "completed",
  hold = false,
): Promise<{ stop(): Promise<void>; child: Deno.ChildProcess }> {
  const script = new URL("./_live_plane.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", script, packetDir, runId, ending, ...(hold ? ["hold"] : [])],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("ready")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("live plane exited before it was ready");
    seen += value;
  }
  return {
    child,
    async stop() {
      await child.stdin.close();
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
      }
      await child.status;
    },
  };
}
