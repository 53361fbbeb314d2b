/**
 * Opens a plane on a store root and scans once; run with PROMPT_RUNNER_FAILPOINT=control.after_claim to die between
 * claiming a request and recording its outcome.
 *
 * Usage: deno run -A tests/control/_claim_crash.ts <storeRoot>
 */
import { testPlane } from "./_harness.ts";

const { plane } = await testPlane(Deno.args[0]!);
plane.boundary();
await plane.close("completed", null);
