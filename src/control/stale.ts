/**
 * Stale requests (docs/control-protocol.md "Stale requests"): a request dropped just as its run ended is seen by no
 * runner. The next command that may write — a `control` writer — gives each one its `rejected` outcome when no
 * runner holds the lease, claiming it by rename first (the same claim a runner uses), so a runner starting at the
 * same moment and this sweep can never both record it.
 */
import { nowIso } from "../util/time.ts";
import { readStoreTextOrNullSync } from "../util/safe_read.ts";
import { AuditWriter } from "./audit.ts";
import { byteOrder, Claimer, requestNameProblem } from "./claim.ts";
import { readLease } from "../store/lease.ts";
import { inspectBody } from "./request_body.ts";
import { storePaths } from "../store/paths.ts";
import { isRecord } from "../util/common.ts";

/** Reason logged for a stale request. */
export const STALE_REASON = "run has finished (no runner took the request)";

/**
 * The run id of the last snapshot, only to label stale log entries that carry none. Deliberately tolerant: a snapshot
 * that is absent, refused by name (a planted FIFO or link is never opened) or undecodable leaves the label null, and
 * the sweep still gives every stale request its outcome.
 */
function snapshotRunId(path: string): string | null {
  try {
    const text = readStoreTextOrNullSync(path);
    const v: unknown = text === null ? null : JSON.parse(text);
    return isRecord(v) && typeof v.run_id === "string" ? v.run_id : null;
  } catch {
    return null;
  }
}

/**
 * Reject every request left in `requests/` when no runner is live (lease `down`); returns how many were recorded.
 * Does nothing while a runner holds the lease (or its state is unknown), or when the control directory is absent.
 */
export async function sweepStaleRequests(storeRoot: string): Promise<number> {
  const p = storePaths(storeRoot);
  let names: string[];
  try {
    names = [...Deno.readDirSync(p.requests)].map((e) => e.name).sort(byteOrder);
  } catch {
    return 0;
  }
  if (names.length === 0) return 0;
  if ((await readLease(storeRoot)).state !== "down") return 0;
  const rand = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16);
  const claims = new Claimer(p, `sweep-${Deno.pid}-${rand}`);
  const audit = new AuditWriter(storeRoot);
  audit.open();
  const fallbackRun = snapshotRunId(p.snapshot);
  let recorded = 0;
  try {
    for (const name of names) {
      const problem = requestNameProblem(name);
      const as = problem === null ? name : Claimer.safeName();
      const path = claims.claim(name, as);
      if (path === null) continue; // a runner or another sweep took it
      const content = problem === null ? claims.read(path) : null;
      const ins = content?.kind === "bytes" ? inspectBody(content.bytes) : null;
      const fields = ins && (ins.kind === "request" || ins.kind === "no_command" || ins.kind === "invalid")
        ? ins
        : null;
      const runId = fields && "runId" in fields && fields.runId !== null ? fields.runId : fallbackRun;
      const command = fields ? (fields.kind === "no_command" ? "unknown" : fields.command) : "rejected_file";
      const reason = problem ?? (fields?.kind === "invalid" ? `${STALE_REASON}; ${fields.reason}` : STALE_REASON);
      if (problem !== null || !audit.hasReceipt(name)) {
        audit.append({
          at: nowIso(),
          key: `${as}:rejected`,
          request: name,
          run_id: runId,
          command,
          params: fields ? fields.params : {},
          author: fields ? fields.author : "unknown",
          outcome: "rejected",
          reason,
          prompt_id: null,
          attempt: null,
        });
        if (problem === null) {
          audit.writeReceipt({
            request: name,
            run_id: runId,
            command,
            outcome: "rejected",
            reason,
            recorded_at: nowIso(),
          });
        }
        recorded++;
      }
      claims.discard(path, problem === null ? name : null);
    }
  } finally {
    audit.close();
    claims.release();
  }
  return recorded;
}
