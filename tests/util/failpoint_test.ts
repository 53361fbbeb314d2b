import assert from "node:assert/strict";

const MODULE = new URL("../../src/util/failpoint.ts", import.meta.url).href;

async function runWith(env: string | null, script: string): Promise<Deno.CommandOutput> {
  const code = `import { failpoint } from ${JSON.stringify(MODULE)};\n${script}`;
  const e: Record<string, string> = {};
  if (env !== null) e.PROMPT_RUNNER_FAILPOINT = env;
  return await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", code],
    env: e,
    clearEnv: false,
    stdout: "piped",
    stderr: "piped",
  }).output();
}

Deno.test("failpoint() is inert when the variable is unset or names another point", async () => {
  const out = await runWith(null, `failpoint("a"); console.log("alive");`);
  assert.deepEqual(new TextDecoder().decode(out.stdout).trim(), "alive");
  const other = await runWith("b", `failpoint("a"); console.log("alive");`);
  assert.deepEqual(new TextDecoder().decode(other.stdout).trim(), "alive");
});

Deno.test("failpoint() SIGKILLs the process at the armed point, and @n picks the n-th occurrence", async () => {
  const out = await runWith("a", `console.log("before"); failpoint("a"); console.log("after");`);
  assert.deepEqual(out.signal, "SIGKILL");
  assert.deepEqual(new TextDecoder().decode(out.stdout).trim(), "before");
  assert(new TextDecoder().decode(out.stderr).includes("failpoint a reached"));
  const second = await runWith("a@2", `for (let i = 1; i <= 3; i++) { console.log(i); failpoint("a"); }`);
  assert.deepEqual(second.signal, "SIGKILL");
  assert.deepEqual(new TextDecoder().decode(second.stdout).trim().split("\n"), ["1", "2"]);
});
