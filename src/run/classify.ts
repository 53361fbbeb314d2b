/**
 * Failure classification (docs/reference/runner.md §5): every non-ok stream result becomes a failure envelope. Pure: the order is
 * local gates → explicit recovery map → the lane's structured hint / HTTP status → message heuristics.
 */
import type { StreamEnd } from "../lanes/mod.ts";

/** Failure classes of docs/reference/runner.md §5. */
export type FailureClass =
  | "provider_capacity"
  | "provider_rate_limit"
  | "provider_auth_claim"
  | "provider_config_claim"
  | "provider_runtime_claim"
  | "transport_disconnect"
  | "transport_timeout"
  | "protocol_error"
  | "launch_failed"
  | "user_cancelled"
  | "approval_denied"
  | "guardrail_blocked"
  | "unknown";

/** The normalised failure envelope (docs/reference/runner.md §5); success has class `ok` with every flag false. */
export interface FailureEnvelope {
  class: FailureClass | "ok";
  retryable: boolean;
  repairable: boolean;
  resumeable: boolean;
  local_deterministic: boolean;
  remote_claim: boolean;
  severity: string;
  phase: string | null;
  provider_code: string | null;
  suggested_delay_ms: number | null;
  suggested_max_attempts: number | null;
  message: string;
  stderr_tail: string;
  raw: unknown;
}

interface ClassFacts {
  retry: boolean;
  repair: boolean;
  resume: boolean;
  local: boolean;
  delay: number | null;
}

/** Per-class default flags and suggested delay (docs/reference/runner.md §5 table). */
export const CLASS_TABLE: Readonly<Record<FailureClass, ClassFacts>> = {
  provider_capacity: { retry: true, repair: true, resume: false, local: false, delay: 2000 },
  provider_rate_limit: { retry: true, repair: true, resume: false, local: false, delay: 2000 },
  provider_auth_claim: { retry: true, repair: true, resume: false, local: false, delay: null },
  provider_config_claim: { retry: true, repair: true, resume: false, local: false, delay: null },
  provider_runtime_claim: { retry: true, repair: true, resume: false, local: false, delay: null },
  transport_disconnect: { retry: true, repair: true, resume: true, local: false, delay: null },
  transport_timeout: { retry: true, repair: true, resume: true, local: false, delay: null },
  protocol_error: { retry: true, repair: true, resume: true, local: false, delay: null },
  launch_failed: { retry: false, repair: false, resume: false, local: true, delay: null },
  user_cancelled: { retry: false, repair: false, resume: false, local: false, delay: null },
  approval_denied: { retry: false, repair: false, resume: false, local: false, delay: null },
  guardrail_blocked: { retry: false, repair: false, resume: false, local: false, delay: null },
  unknown: { retry: true, repair: true, resume: false, local: false, delay: null },
};

/** Whether a string names a failure class. */
function isFailureClass(s: string): s is FailureClass {
  return Object.hasOwn(CLASS_TABLE, s);
}

/** The success envelope. */
export function okEnvelope(): FailureEnvelope {
  return {
    class: "ok",
    retryable: false,
    repairable: false,
    resumeable: false,
    local_deterministic: false,
    remote_claim: false,
    severity: "info",
    phase: null,
    provider_code: null,
    suggested_delay_ms: null,
    suggested_max_attempts: null,
    message: "",
    stderr_tail: "",
    raw: null,
  };
}

/** Message heuristics in table order; "temporarily unavailable" means capacity (checked first). */
const HEURISTICS: [FailureClass, RegExp][] = [
  ["provider_capacity", /overloaded|\b529\b|capacity|high demand|temporarily unavailable|try again later|\bbusy\b/i],
  ["provider_rate_limit", /\b429\b|rate.?limit|too many requests/i],
  ["provider_auth_claim", /\b401\b|\b403\b|api.?key|unauthori[sz]ed|forbidden|authenticat/i],
  [
    "provider_config_claim",
    /model (?:not found|unavailable)|unsupported|invalid|bad request|does not exist|not available/i,
  ],
  ["transport_disconnect", /connection reset|disconnected|exited without a terminal event/i],
  ["transport_timeout", /time(?:d)? ?out/i],
  ["protocol_error", /protocol error|unparseable/i],
  ["launch_failed", /executable (?:not found|missing)|not executable|command not found|ENOENT/i],
  ["user_cancelled", /cancel+ed/i],
  ["approval_denied", /approval (?:denied|required)/i],
  ["guardrail_blocked", /guardrail|blocked by policy/i],
];

/** Class by message heuristics (docs/reference/runner.md §5 step 4); `unknown` when nothing matches. */
export function classifyMessage(message: string): FailureClass {
  for (const [cls, re] of HEURISTICS) if (re.test(message)) return cls;
  return "unknown";
}

/**
 * Class from an HTTP status (step 3), the same on every lane: a request the provider rejects as malformed, too large
 * or naming an unknown model is a config claim; a server-side failure (500, 502, 503, 529) is capacity.
 */
export function classifyStatus(status: number): FailureClass | null {
  if (status === 529 || status === 503 || status === 502 || status === 500) return "provider_capacity";
  if (status === 429) return "provider_rate_limit";
  if (status === 401 || status === 403) return "provider_auth_claim";
  if (status === 400 || status === 404 || status === 413 || status === 422) return "provider_config_claim";
  if (status >= 500 && status <= 599) return "provider_runtime_claim";
  return null;
}

/** Class from a structured error code (step 3), e.g. `transport_exit`, `http_429`, a lane kind. */
function classifyCode(code: string): FailureClass | null {
  if (isFailureClass(code)) return code;
  if (code === "transport_exit" || code === "transport_error") return "transport_disconnect";
  if (code === "stream_failed") return "protocol_error";
  if (code === "model_unavailable" || code === "model_not_found") return "provider_config_claim";
  const http = /^http_(\d{3})$/.exec(code);
  if (http) return classifyStatus(Number(http[1]));
  return null;
}

const BOOL_TRUE = new Set<unknown>([true, "true", "TRUE", "1", 1]);

function flag(map: Record<string, unknown>, key: string): boolean | undefined {
  const v = key in map ? map[key] : `${key}?` in map ? map[`${key}?`] : undefined;
  return v === undefined ? undefined : BOOL_TRUE.has(v);
}

function intOrNull(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return Math.floor(v);
  if (typeof v === "string" && /^\d+$/.test(v.trim())) return Number(v.trim());
  return null;
}

function fromClass(cls: FailureClass, base: Omit<FailureEnvelope, keyof ClassFlags>): FailureEnvelope {
  const f = CLASS_TABLE[cls];
  return {
    ...base,
    class: cls,
    retryable: f.retry,
    repairable: f.repair,
    resumeable: f.resume,
    local_deterministic: f.local,
    remote_claim: cls.startsWith("provider_"),
    suggested_delay_ms: f.delay,
  };
}

type ClassFlags = Pick<
  FailureEnvelope,
  "class" | "retryable" | "repairable" | "resumeable" | "local_deterministic" | "remote_claim" | "suggested_delay_ms"
>;

/** What classification needs from a failed stream. */
export interface FailureInput {
  /** The lane could not be launched (local gate). */
  launchFailed?: boolean;
  code: string;
  message: string;
  /** HTTP status, when the provider reported one. */
  status?: number | null;
  hintClass: string | null;
  recovery: Record<string, unknown> | null;
  stderrTail: string;
  raw?: unknown;
}

/** Normalise a failure into an envelope (docs/reference/runner.md §5 order). */
export function classifyFailure(input: FailureInput): FailureEnvelope {
  const base = {
    severity: "error",
    phase: "session" as string | null,
    provider_code: input.code || null,
    suggested_max_attempts: null as number | null,
    message: input.message,
    stderr_tail: input.stderrTail,
    raw: input.raw ?? null,
  };
  // (1) local gates
  if (input.launchFailed || input.code === "launch_failed") {
    return { ...fromClass("launch_failed", base), phase: "launch" };
  }
  // (2) explicit recovery map
  const rec = input.recovery;
  if (rec && typeof rec.class === "string" && isFailureClass(rec.class)) {
    const env = fromClass(rec.class, base);
    const set = <K extends "retryable" | "repairable" | "resumeable" | "local_deterministic" | "remote_claim">(
      k: K,
    ) => {
      const v = flag(rec, k);
      if (v !== undefined) env[k] = v;
    };
    set("retryable");
    set("repairable");
    set("resumeable");
    set("local_deterministic");
    set("remote_claim");
    if ("suggested_delay_ms" in rec) env.suggested_delay_ms = intOrNull(rec.suggested_delay_ms);
    if ("suggested_max_attempts" in rec) env.suggested_max_attempts = intOrNull(rec.suggested_max_attempts);
    if (typeof rec.severity === "string") env.severity = rec.severity;
    if (typeof rec.phase === "string") env.phase = rec.phase;
    if (typeof rec.provider_code === "string") env.provider_code = rec.provider_code;
    return env;
  }
  // (3) structured hints: the lane's class, the HTTP status, the error code
  const hinted = (input.hintClass && isFailureClass(input.hintClass) ? input.hintClass : null) ??
    (typeof input.status === "number" ? classifyStatus(input.status) : null) ?? classifyCode(input.code);
  if (hinted) return fromClass(hinted, base);
  // (4) message heuristics
  return fromClass(classifyMessage(`${input.message}\n${input.stderrTail}`), base);
}

/** Envelope of a failed stream end; null for ok and cancelled ends. */
export function classifyStreamEnd(end: StreamEnd): FailureEnvelope | null {
  if (end.kind !== "error") return null;
  return classifyFailure({
    code: end.code,
    message: end.message,
    status: end.providerError.status ?? null,
    hintClass: end.hintClass,
    recovery: end.recovery,
    stderrTail: end.stderrTail,
    raw: end.providerError,
  });
}
