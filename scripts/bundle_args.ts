/**
 * The `deno bundle` arguments of `deno task bundle` (deno.json is their one definition), with the output redirected:
 * the `cli` benchmark case and tests/cli/bundle_test.ts build the bundle exactly as users get it.
 */

const ROOT = new URL("../", import.meta.url).pathname;

/** `deno task bundle`'s arguments (after the `deno` executable) writing to `out`, plus `--quiet`. */
export async function bundleTaskArgs(out: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as { tasks?: Record<string, string> };
  const words = (config.tasks?.bundle ?? "").split(/\s+/).filter(Boolean);
  const at = words.indexOf("--output");
  if (words[0] !== "deno" || words[1] !== "bundle" || at < 0 || at + 1 >= words.length) {
    throw new Error(`deno.json: tasks.bundle is not "deno bundle … --output FILE …": ${words.join(" ")}`);
  }
  words[at + 1] = out;
  return ["bundle", "--quiet", ...words.slice(2)];
}
