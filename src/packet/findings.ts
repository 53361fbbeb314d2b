/** A collector for load and lint findings (docs/reference/packet.md §11) shared by the loader and `packet lint`. */
import type { Finding } from "./types.ts";

/** Where a finding points. */
export interface FindingAt {
  file?: string | null;
  key?: string | null;
  prompt_id?: string | null;
}

/** Collects findings in discovery order. */
export class FindingSink {
  /** Every finding so far. */
  readonly list: Finding[] = [];

  /** Record an error finding. */
  error(kind: string, message: string, at: FindingAt = {}): void {
    this.add("error", kind, message, at);
  }

  /** Record a warning finding. */
  warn(kind: string, message: string, at: FindingAt = {}): void {
    this.add("warning", kind, message, at);
  }

  /** Append another sink's findings (keeps their order; duplicates dropped). */
  merge(other: FindingSink): void {
    for (const f of other.list) this.add(f.severity, f.kind, f.message, f);
  }

  /** The error findings. */
  errors(): Finding[] {
    return this.list.filter((f) => f.severity === "error");
  }

  private add(severity: Finding["severity"], kind: string, message: string, at: FindingAt): void {
    const f: Finding = {
      kind,
      severity,
      prompt_id: at.prompt_id ?? null,
      file: at.file ?? null,
      key: at.key ?? null,
      message,
    };
    if (this.list.some((g) => sameFinding(f, g))) return;
    this.list.push(f);
  }
}

function sameFinding(a: Finding, b: Finding): boolean {
  return a.kind === b.kind && a.severity === b.severity && a.file === b.file && a.key === b.key &&
    a.message === b.message && a.prompt_id === b.prompt_id;
}
