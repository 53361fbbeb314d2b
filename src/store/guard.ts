/**
 * Up-front integrity check of an existing store root (docs/store.md): every well-known file must be a regular file
 * and every well-known directory a real directory, and the append-only directories (`logs/`, `runs/`,
 * `interventions/`, `amendments/`, `control/events/`, `acceptance/`, `imports/`; a run directory's `simulated/`) may hold nothing
 * else. A planted symlink, FIFO
 * or device is refused with a {@link StoreIntegrityError} naming the path before anything reads or writes it.
 * `control/requests/` and `control/rejected/` are left to the inbox, which rejects such entries itself.
 */
import { lstatStoreSync } from "../util/safe_fs.ts";
import { storePaths } from "./paths.ts";

function scan(dir: string, want: "file" | "dir" | "any"): string[] {
  if (lstatStoreSync(dir, "dir") === null) return [];
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (want === "any") lstatStoreSync(path, entry.isDirectory ? "dir" : "file");
    else lstatStoreSync(path, want);
    if (entry.isDirectory) out.push(path);
  }
  return out;
}

/** Refuse a store root whose well-known entries are links or special files. No effect when the root is absent. */
export function assertStoreIntact(storeRoot: string): void {
  const p = storePaths(storeRoot);
  if (lstatStoreSync(p.root, "dir") === null) return;
  for (
    const f of [p.gitignore, p.storeJson, p.state, p.statePending, p.verifications, p.progress, p.runLock, p.runPid]
  ) {
    lstatStoreSync(f, "file");
  }
  for (const d of [p.control, p.controlTmp, p.requests, p.outcomes, p.rejected]) lstatStoreSync(d, "dir");
  for (const f of [p.log, p.snapshot, p.events]) lstatStoreSync(f, "file");
  for (
    const d of [
      p.logs,
      p.interventions,
      p.amendments,
      p.contractEdits,
      p.eventsArchive,
      `${p.root}/acceptance`,
      p.imports,
    ]
  ) {
    scan(d, "file");
  }
  for (const run of scan(p.runs, "any")) {
    // A run directory holds files, and `simulated/` (the simulated lane's script cursors) holding files.
    if (lstatStoreSync(`${run}/simulated`, "dir") !== null) scan(`${run}/simulated`, "file");
    // `agent-control/` (docs/agent-control.md §2) holds the runner's entries only: `bin/` with the shim, one private
    // directory per invocation and its `<dir>.closed` marker file. What an agent put inside its own directory is
    // judged by the runner record by record (a link or special file is refused there), so it can never make the
    // store refuse to open.
    if (lstatStoreSync(`${run}/agent-control`, "dir") !== null) {
      scan(`${run}/agent-control`, "any");
      scan(`${run}/agent-control/bin`, "file");
    }
    for (const entry of Deno.readDirSync(run)) {
      if (entry.name !== "simulated" && entry.name !== "agent-control") lstatStoreSync(`${run}/${entry.name}`, "file");
    }
  }
}
