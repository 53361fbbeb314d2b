/**
 * Failpoints: named crash points, inert unless the environment variable `PROMPT_RUNNER_FAILPOINT` names one.
 *
 * `PROMPT_RUNNER_FAILPOINT=<name>[,<name>…]` makes the process kill itself with SIGKILL (no cleanup, no unload
 * handlers: exactly what a power cut or an OOM kill looks like) the first time it reaches a named point.
 * `<name>@<n>` crashes at the n-th time the point is reached (1-based), so a test can crash inside the second prompt.
 * Tests use them to kill the runner at a precise instant and then assert the resumed history (docs/failpoints.md
 * lists every point). With the variable unset, {@link failpoint} is a map lookup and nothing else.
 */
import { sendSignal } from "./signal.ts";

/** The environment variable that arms failpoints. */
const FAILPOINT_ENV = "PROMPT_RUNNER_FAILPOINT";

let armed: Map<string, number> | null = null;
const hits = new Map<string, number>();

function parseArmed(): Map<string, number> {
  const out = new Map<string, number>();
  let raw: string | undefined;
  try {
    raw = Deno.env.get(FAILPOINT_ENV);
  } catch {
    raw = undefined; // no env permission: failpoints stay inert
  }
  for (const part of (raw ?? "").split(",")) {
    const t = part.trim();
    if (t === "") continue;
    const at = t.lastIndexOf("@");
    const name = at > 0 ? t.slice(0, at) : t;
    const n = at > 0 ? Number(t.slice(at + 1)) : 1;
    out.set(name, Number.isInteger(n) && n > 0 ? n : 1);
  }
  return out;
}

/**
 * Crash here when `name` is armed and this is the armed occurrence. Writes one line to stderr first so a test can
 * tell a failpoint crash from any other death, then SIGKILLs its own process.
 */
export function failpoint(name: string): void {
  armed ??= parseArmed();
  if (armed.size === 0) return;
  const want = armed.get(name);
  if (want === undefined) return;
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  if (n !== want) return;
  try {
    Deno.stderr.writeSync(new TextEncoder().encode(`failpoint ${name} reached: killing ${Deno.pid}\n`));
  } catch { /* stderr closed */ }
  sendSignal(Deno.pid, "SIGKILL");
  // Only reached when no signal could be sent at all: still die without cleanup.
  Deno.exit(137);
}
