/**
 * Reading a run's recorded event stream (docs/reference/control-plane.md §5.2), apart from the rest of the control
 * surface: `replay` reads files and never evaluates the request, steering and lease code ./mod.ts carries.
 */

/**
 * The files of run `runId`'s event stream in read order — sealed segments, then the live or archived last segment
 * (docs/reference/control-plane.md §5.2) — or of the latest run when `runId` is null (`runId: null`: none recorded).
 */
export async function eventStream(
  storeRoot: string,
  runId: string | null,
): Promise<{ runId: string | null; files: string[] }> {
  return (await import("./segments.ts")).eventStream(storeRoot, runId);
}

/**
 * The decodable envelopes of stream files, in order, read one 64 KiB chunk at a time: flat memory for a run of any
 * size. For a live run that is still writing, `subscribe` (./mod.ts) is the reader that follows it.
 */
export async function* readEventFiles(files: readonly string[]): AsyncGenerator<Record<string, unknown>> {
  yield* (await import("./segments.ts")).readStreamFiles(files);
}
