/**
 * Appending to `progress.log` (docs/reference/runner.md §10.3): the runner's one writer of it, apart from the readers
 * in ./progress.ts so that a command that only reads the log (`list`, `status`) loads no writer.
 */
import { storePaths } from "./paths.ts";
import { atomicWriteStoreText, ensureStoreDir, lstatStoreSync } from "../util/safe_fs.ts";
import { appendHeldLine } from "../util/held_append.ts";
import { nowIso } from "../util/time.ts";
import { failpoint } from "../util/failpoint.ts";
import { formatProgressLine, type ProgressStatus } from "./progress.ts";

/** Append one status line with a single write and fsync. */
export async function appendProgress(
  storeRoot: string,
  id: string,
  status: ProgressStatus,
  suffix: string | null,
): Promise<void> {
  const paths = storePaths(storeRoot);
  await ensureStoreDir(paths.root, paths.root);
  const line = formatProgressLine(id, status, nowIso(), suffix);
  // The first line creates the file atomically: a crash can never leave an empty progress.log (which reads as
  // corrupt). Later lines are single O_APPEND writes. Never through a link (src/util/safe_fs.ts).
  if (lstatStoreSync(paths.progress, "file") !== null) await appendHeldLine(paths.progress, line, { fsync: true });
  else await atomicWriteStoreText(paths.progress, line + "\n", { fsync: true });
  failpoint("progress.after_append");
}
