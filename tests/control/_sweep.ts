/**
 * Runs one stale-request sweep on a store root and prints how many requests it recorded (race tests).
 *
 * Usage: deno run -A tests/control/_sweep.ts <storeRoot>
 */
import { sweepStaleRequests } from "../../src/control/stale.ts";

console.log(await sweepStaleRequests(Deno.args[0]!));
