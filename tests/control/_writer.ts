/**
 * A concurrent request writer for the concurrency test: writes N requests into a store root's control directory
 * through the real write protocol and prints each file name with its kind.
 *
 * Usage: deno run -A tests/control/_writer.ts <storeRoot> <runId> <count>
 */
import { REQUEST_SCHEMA, writeRequest } from "../../src/control/request.ts";

const [storeRoot, runId, countText] = Deno.args;
const count = Number(countText);
const out: string[] = [];
for (let i = 0; i < count; i++) {
  const kind = i % 3 === 0 ? "view_ok" : i % 3 === 1 ? "view_bad" : "steer";
  const params: Record<string, unknown> = kind === "view_ok"
    ? { tool_output: i % 2 ? "full" : "none" }
    : kind === "view_bad"
    ? { tool_output: "everything" }
    : { text: `steer ${i}` };
  const name = await writeRequest(storeRoot!, {
    schema: REQUEST_SCHEMA,
    command: kind === "steer" ? "steer" : "set_view",
    params,
    run_id: runId!,
    author: `w${Deno.pid}`,
    issued_at: new Date().toISOString(),
  });
  out.push(`${kind} ${name}`);
}
console.log(out.join("\n"));
