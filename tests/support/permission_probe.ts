/**
 * Spawned by tests with every permission (-A): scopes permissions exactly as main.ts does for the command named by
 * argv, then tries to write, spawn, open a socket and read env, and prints what happened as JSON.
 */
import { findCommand } from "../../src/cli/registry.ts";
import { scopePermissions } from "../../src/cli/frame.ts";

const [target, ...argv] = Deno.args;
const found = findCommand(argv);
if (!found || !target) {
  console.log(JSON.stringify({ error: "usage: permission_probe <scratch dir> <command words…>" }));
  Deno.exit(2);
}
scopePermissions(found.entry.permissions);

function attempt(fn: () => void): string {
  try {
    fn();
    return "ok";
  } catch (e) {
    return e instanceof Error ? e.constructor.name : String(e);
  }
}

const results = {
  read: attempt(() => Deno.readDirSync(target)),
  write: attempt(() => Deno.writeTextFileSync(`${target}/probe.txt`, "x")),
  run: attempt(() => new Deno.Command("true").outputSync()),
  net: attempt(() => Deno.listen({ hostname: "127.0.0.1", port: 0 }).close()),
  env: attempt(() => Deno.env.get("HOME")),
  sys: attempt(() => Deno.hostname()),
};
console.log(JSON.stringify(results));
