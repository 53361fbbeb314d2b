/**
 * Tests wait on conditions, never on fixed sleeps (tests/support/wait.ts): a fixed "let it start" sleep is too short
 * somewhere on a loaded machine. This fails on a fixed-sleep wait in any test file outside tests/support, except the
 * few deliberate pauses allowlisted below, each with its reason.
 */
import assert from "node:assert/strict";

const ROOT = new URL("./", import.meta.url).pathname;

/**
 * Deliberate pauses (`pause(ms)` of tests/support/wait.ts), by file: how many, and why each is not a wait.
 * A new entry needs the same kind of reason; a wait for something to happen is a `waitFor` on that condition.
 */
const ALLOWED: Record<string, { count: number; why: string }> = {
  "control/waker_test.ts": {
    count: 1,
    why:
      "a window in which the watch event arrives while nobody waits (the case under test); late is weaker, not flaky",
  },
  "control/follow_gap_test.ts": {
    count: 1,
    why: "spacing between generated operations so the follower reads at varying points (property test), not a wait",
  },
  "run/recovery_cli_test.ts": {
    count: 2,
    why: "spacing two SIGINTs so the kernel delivers two signals instead of coalescing them, not a wait",
  },
  "e2e/raw_cli_test.ts": {
    count: 1,
    why: "SIGINT lands while the tool runs rather than at its exec; the condition (the tool process exists) is awaited",
  },
};

/** Lines (1-based) of `text` that sleep for a fixed time: a timer resolving a promise, `delay(`/`sleep(`/`pause(`. */
export function fixedSleeps(text: string): number[] {
  const hits: number[] = [];
  const timerResolves = /setTimeout\(\s*(?:\w+|\(\)\s*=>\s*\w+\([^()]*\))\s*,\s*(?!\s|0\s*\))[^)]/;
  const sleepCall = /\b(?:delay|sleep|pause)\(\s*[^)\s]/;
  text.split("\n").forEach((line, i) => {
    const code = line.replace(/\/\/.*$/, "");
    if (timerResolves.test(code) || sleepCall.test(code)) hits.push(i + 1);
  });
  return hits;
}

async function* testFiles(dir: string, rel = ""): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory) {
      if (path === "support" || path === "fixtures" || path === ".tools") continue;
      yield* testFiles(`${dir}/${e.name}`, path);
    } else if (e.isFile && e.name.endsWith(".ts") && path !== "support_test.ts") yield path;
  }
}

Deno.test("fixedSleeps() finds timer sleeps and sleep helpers, not zero-delay turns, deadlines or waitFor", () => {
  const sample = [
    "await new Promise((r) => setTimeout(r, 400));", // 1: a sleep
    "await new Promise((res) => setTimeout(res, ms));", // 2: a sleep of a variable
    "const t = new Promise<null>((r) => (timer = setTimeout(() => r(null), 60_000)));", // 3: a hand-rolled race
    "await delay(50);", // 4
    "await pause(5);", // 5
    "await new Promise((r) => setTimeout(r, 0));", // 6: one event-loop turn: fine
    "const timer = setTimeout(() => {", // 7: a deadline's kill timer: fine
    "await waitFor(() => ready, { timeoutMs: 100 });", // 8: fine
    "// await pause(5) in a comment", // 9: fine
  ].join("\n");
  assert.deepEqual(fixedSleeps(sample), [1, 2, 3, 4, 5]);
});

Deno.test("no test file waits on a fixed sleep outside tests/support (deliberate pauses are allowlisted)", async () => {
  const found: Record<string, number[]> = {};
  for await (const rel of testFiles(ROOT.replace(/\/$/, ""))) {
    const hits = fixedSleeps(await Deno.readTextFile(`${ROOT}${rel}`));
    if (hits.length) found[rel] = hits;
  }
  const offending = Object.entries(found)
    .filter(([rel, hits]) => hits.length !== (ALLOWED[rel]?.count ?? 0))
    .map(([rel, hits]) => `${rel}: line(s) ${hits.join(", ")} (allowed: ${ALLOWED[rel]?.count ?? 0})`);
  assert.deepEqual(offending, [], "wait on a condition (tests/support/wait.ts waitFor) instead of a fixed sleep");
  const stale = Object.keys(ALLOWED).filter((rel) => !(rel in found));
  assert.deepEqual(stale, [], "allowlist entries without a pause any more: remove them");
});
