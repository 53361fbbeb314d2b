/** The verification history `<store>/verifications.jsonl` (docs/reference/runner.md §10.2) and amendment timing classes. */
import { parseJsonLines } from "../util/fs.ts";
import { createStoreFileOnceSync, secureStoreRoot } from "../util/safe_fs.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { appendHeldLine } from "../util/held_append.ts";
import { storePaths } from "../store/paths.ts";
import type { TimingClass, VerifyReport } from "./types.ts";

/** One line of `verifications.jsonl`. */
export interface VerificationRecord {
  at: string;
  run_id: string | null;
  prompt: string;
  source: VerifyReport["source"];
  attempt: number | null;
  status: "pass" | "fail" | "fault";
  failures: string[];
  faults: string[];
  contract_digest: string;
}

/** The history line for a report (pure). */
function verificationRecord(report: VerifyReport): VerificationRecord {
  return {
    at: report.verified_at,
    run_id: report.run_id,
    prompt: report.prompt_id,
    source: report.source,
    attempt: report.attempt,
    status: report.status,
    failures: report.failures,
    faults: report.faults,
    contract_digest: report.contract_digest,
  };
}

/**
 * Append one verification to the history with a single write. Creates the store root (with its `*` .gitignore)
 * when it does not exist yet, so runtime state never shows up in a target repo's status.
 */
export async function appendVerification(storeRoot: string, report: VerifyReport): Promise<void> {
  const paths = storePaths(storeRoot);
  await secureStoreRoot(paths.root);
  createStoreFileOnceSync(paths.gitignore, "*\n");
  await appendHeldLine(paths.verifications, JSON.stringify(verificationRecord(report)));
}

/** Every history record of one prompt, in file order. */
export async function readVerifications(storeRoot: string, promptId?: string): Promise<VerificationRecord[]> {
  const text = await readStoreTextOrNull(storePaths(storeRoot).verifications);
  if (text === null) return [];
  const all = parseJsonLines<VerificationRecord>(text).filter((r) =>
    typeof r.prompt === "string" && (r.status === "pass" || r.status === "fail" || r.status === "fault")
  );
  return promptId === undefined ? all : all.filter((r) => r.prompt === promptId);
}

/** The prompt's latest verification (any source), or null when it was never verified on this store root. */
export async function latestVerification(
  storeRoot: string,
  promptId: string,
): Promise<{ status: "pass" | "fail" | "fault"; at: string } | null> {
  const recs = await readVerifications(storeRoot, promptId);
  const last = recs[recs.length - 1];
  return last ? { status: last.status, at: last.at } : null;
}

/** The amendment timing class for the latest verification (docs/reference/control-plane.md §9.3). */
export function timingClass(latest: { status: "pass" | "fail" | "fault" } | null): TimingClass {
  if (latest === null) return "pre_verify";
  return latest.status === "pass" ? "post_success" : "post_failure";
}
