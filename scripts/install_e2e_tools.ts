/**
 * Installs the real `claude` and `codex` CLIs for the offline end-to-end suite into the tools directory
 * (`PROMPT_RUNNER_E2E_TOOLS`, default `tests/.tools`) with npm — idempotent: nothing happens when both binaries are
 * present at the pinned versions (docs/reference/providers.md §7.2).
 *
 * Usage: deno run --allow-read --allow-write --allow-run --allow-env scripts/install_e2e_tools.ts
 * Exit 0 when both binaries work afterwards, 1 otherwise.
 */
import { e2eBinary, e2eToolsDir } from "../tests/support/e2e_env.ts";

/** The pinned packages. */
export const E2E_PACKAGES = ["@anthropic-ai/claude-code@2.1.197", "@openai/codex@0.171.0"];
const EXPECTED: Record<"claude" | "codex", string> = { claude: "2.1.197", codex: "0.171.0" };

async function versionOf(bin: string): Promise<string | null> {
  try {
    const out = await new Deno.Command(bin, { args: ["--version"], stdin: "null", stdout: "piped", stderr: "null" })
      .output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : null;
  } catch {
    return null;
  }
}

/** True when both pinned CLIs are installed and answer `--version`. */
export async function e2eToolsReady(): Promise<boolean> {
  for (const name of ["claude", "codex"] as const) {
    const bin = e2eBinary(name);
    if (!bin) return false;
    const v = await versionOf(bin);
    if (!v || !v.includes(EXPECTED[name])) return false;
  }
  return true;
}

/** Install the CLIs when missing; returns whether they are ready afterwards. Logs progress to stderr. */
export async function ensureE2eTools(): Promise<boolean> {
  if (await e2eToolsReady()) return true;
  const dir = e2eToolsDir();
  await Deno.mkdir(dir, { recursive: true });
  console.error(`installing ${E2E_PACKAGES.join(" ")} into ${dir} …`);
  let ok = false;
  try {
    const out = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--prefix", dir, ...E2E_PACKAGES],
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    ok = out.success;
  } catch (e) {
    console.error(`npm could not be started: ${e instanceof Error ? e.message : String(e)}`);
    return false;
  }
  if (!ok) return false;
  if (!(await e2eToolsReady())) {
    // npm versions that skip install scripts leave claude's placeholder binary; its postinstall copies the native one.
    const script = `${dir}/node_modules/@anthropic-ai/claude-code/install.cjs`;
    await new Deno.Command("node", { args: [script], cwd: `${dir}/node_modules/@anthropic-ai/claude-code` })
      .output().catch(() => null);
  }
  return await e2eToolsReady();
}

if (import.meta.main) {
  const ready = await ensureE2eTools();
  console.error(ready ? "e2e tools ready" : "e2e tools NOT available");
  Deno.exit(ready ? 0 : 1);
}
