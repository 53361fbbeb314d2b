/**
 * Lint of a prompt's `simulate:` script (docs/reference/packet.md §7): every key the simulated lane does not read is an error
 * `unknown_simulate_key`, because a misspelt key (`write:` for `writes:`, `eror:` for `error:`) silently changes
 * what the script does. Pure: no file system.
 */
import type { Finding, Prompt } from "./types.ts";
import { editDistance } from "../util/edit_distance.ts";
import { lanes } from "../lanes/catalog.ts";

const TOP = ["session", "attempts", "resume", "steer", "transport"];
const SESSION = ["resumable"];
/** The transports the simulated lane models (its profile's, src/lanes/profiles.ts). */
const SIMULATE_TRANSPORTS: readonly string[] = lanes().transports["simulated"] ?? ["exec"];
const STEP = [
  "label",
  "delay_ms",
  "writes",
  "thinking",
  "messages",
  "tools",
  "usage",
  "events",
  "error",
  "agent_control",
];
const WRITE = ["path", "text", "append", "repo"];
const TOOL = ["name", "input", "output", "is_error", "delay_ms", "writes"];
const USAGE = ["input_tokens", "output_tokens", "cached_input_tokens", "cost_usd"];
const ERROR = ["kind", "message", "stderr", "recovery"];
const RECOVERY_BASE = [
  "class",
  "retryable",
  "repairable",
  "resumeable",
  "local_deterministic",
  "remote_claim",
  "severity",
  "phase",
  "provider_code",
  "suggested_delay_ms",
  "suggested_max_attempts",
];
const RECOVERY = [...RECOVERY_BASE, ...RECOVERY_BASE.map((k) => `${k}?`)];
const EVENT_KINDS = ["message", "thinking", "tool", "write", "usage", "wait_ms", "notice", "agent_control"];

/** Every key a `simulate:` script may use, by where it appears (docs/packets.md documents each). */
export const SIMULATE_KEYS: Readonly<Record<string, readonly string[]>> = {
  top: TOP,
  session: SESSION,
  step: STEP,
  write: WRITE,
  tool: TOOL,
  usage: USAGE,
  error: ERROR,
  recovery: RECOVERY_BASE,
  events: EVENT_KINDS,
};

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function asList(v: unknown): unknown[] {
  return v === undefined || v === null ? [] : Array.isArray(v) ? v : [v];
}

function closest(name: string, known: string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(name, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : null;
}

/** Every `unknown_simulate_key` finding of one prompt (none when it has no `simulate:` map). */
export function lintSimulate(prompt: Pick<Prompt, "id" | "relFile" | "simulate">): Finding[] {
  const out: Finding[] = [];
  const keys = (value: unknown, known: string[], at: string) => {
    if (!isMap(value)) return;
    for (const k of Object.keys(value)) {
      if (known.includes(k)) continue;
      const hint = closest(k, known);
      const key = `${at}.${k}`;
      out.push({
        kind: "unknown_simulate_key",
        severity: "error",
        prompt_id: prompt.id,
        file: prompt.relFile,
        key,
        message: `${prompt.relFile}: ${key} is not a simulate key; ${
          hint ? `did you mean "${hint}"?` : `expected one of: ${known.join(", ")}`
        }`,
      });
    }
  };
  const writes = (v: unknown, at: string) => asList(v).forEach((w, i) => keys(w, WRITE, `${at}[${i + 1}]`));
  const tool = (t: unknown, at: string) => {
    keys(t, TOOL, at);
    if (isMap(t)) writes(t.writes, `${at}.writes`);
  };
  const step = (s: unknown, at: string) => {
    keys(s, STEP, at);
    if (!isMap(s)) return;
    writes(s.writes, `${at}.writes`);
    asList(s.tools).forEach((t, i) => tool(t, `${at}.tools[${i + 1}]`));
    keys(s.usage, USAGE, `${at}.usage`);
    keys(s.error, ERROR, `${at}.error`);
    if (isMap(s.error)) keys(s.error.recovery, RECOVERY, `${at}.error.recovery`);
    asList(s.events).forEach((e, i) => {
      const eat = `${at}.events[${i + 1}]`;
      keys(e, EVENT_KINDS, eat);
      if (!isMap(e)) return;
      if (isMap(e.tool)) tool(e.tool, `${eat}.tool`);
      if (e.write !== undefined) writes(e.write, `${eat}.write`);
      keys(e.usage, USAGE, `${eat}.usage`);
    });
  };
  const sim = prompt.simulate;
  if (!isMap(sim)) return out;
  keys(sim, TOP, "simulate");
  if (sim.transport !== undefined && !SIMULATE_TRANSPORTS.includes(String(sim.transport))) {
    out.push({
      kind: "invalid_option_value",
      severity: "error",
      prompt_id: prompt.id,
      file: prompt.relFile,
      key: "simulate.transport",
      message: `${prompt.relFile}: simulate.transport is ${JSON.stringify(sim.transport)}; expected one of: ${
        SIMULATE_TRANSPORTS.join(", ")
      }`,
    });
  }
  keys(sim.session, SESSION, "simulate.session");
  asList(sim.attempts).forEach((s, i) => step(s, `simulate.attempts[${i + 1}]`));
  for (const k of ["resume", "steer"]) {
    if (Array.isArray(sim[k])) (sim[k] as unknown[]).forEach((s, i) => step(s, `simulate.${k}[${i + 1}]`));
    else step(sim[k], `simulate.${k}`);
  }
  return out;
}
