/**
 * The `prompt_runner` command a controlled provider session finds first on its PATH (docs/agent-control.md §2): a
 * small shell script in the run's agent-control directory that runs this same program — the same deno and main
 * module with exactly the `agent-control` command's permissions, or the same compiled binary.
 */
import { createStoreFileOnceSync, ensureStoreDir } from "../util/safe_fs.ts";

/** The permissions of `agent-control` (src/cli/registry.ts; tests/run/agent_shim_test.ts keeps the two equal). */
export const AGENT_CONTROL_FLAGS = ["--allow-read", "--allow-write", "--allow-env"];

/** Single-quote a word for sh. */
function sh(word: string): string {
  return `'${word.replaceAll("'", `'"'"'`)}'`;
}

/** The command line that runs this program: deno + main module, or the compiled binary itself. */
export function selfInvocation(
  execPath = Deno.execPath(),
  mainModule = Deno.mainModule,
): string[] {
  const exe = execPath.slice(execPath.lastIndexOf("/") + 1);
  if (!/^deno(\.exe)?$/.test(exe)) return [execPath];
  const main = mainModule.startsWith("file://") ? decodeURIComponent(new URL(mainModule).pathname) : mainModule;
  return [execPath, "run", "--quiet", "--no-prompt", ...AGENT_CONTROL_FLAGS, main];
}

/** The shim's text. */
export function shimText(invocation: string[]): string {
  return `#!/bin/sh\n# prompt_runner agent control: runs the program that started this session\nexec ${
    invocation.map(sh).join(" ")
  } "$@"\n`;
}

/** Write the shim into `bin` (once per run) and return the directory to put first on PATH. */
export async function agentShim(storeRoot: string, bin: string): Promise<string> {
  await ensureStoreDir(storeRoot, bin);
  const path = `${bin}/prompt_runner`;
  createStoreFileOnceSync(path, shimText(selfInvocation()));
  await Deno.chmod(path, 0o700);
  return bin;
}
