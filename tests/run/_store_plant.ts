/**
 * Store symlink-plant harness (docs/store.md): the store entries the runner writes, appends or reads, the four ways
 * each is planted (a link to a file, to a directory, to a FIFO, dangling), a canary directory every link points into,
 * and a byte-for-byte snapshot of that canary (entry kinds, modes and file contents) to prove nothing was written
 * outside the store.
 */

/** How an entry is planted. */
export type PlantKind = "file" | "dir" | "fifo" | "dangling";

/** Every plant kind. */
export const PLANT_KINDS: PlantKind[] = ["file", "dir", "fifo", "dangling"];

/**
 * Store-relative paths the runner writes, appends or reads (docs/reference/runner.md §10.1, docs/reference/control-plane.md §2.3). Directories end
 * in `/`. `runs/<id>/…` uses a fixed earlier run id; `logs/…` and `control/events/…` are entries of an earlier run.
 */
export const STORE_ENTRIES: string[] = [
  ".gitignore",
  "store.json",
  "state.json",
  "verifications.jsonl",
  "progress.log",
  "run.lock",
  "run.pid",
  "logs/",
  "logs/prompt-01-20260101-000000.log",
  "runs/",
  "runs/current.json",
  "runs/20260101T000000Z-AAAAAA/",
  "runs/20260101T000000Z-AAAAAA/run.json",
  "runs/20260101T000000Z-AAAAAA/journal.jsonl",
  "interventions/",
  "interventions/01.jsonl",
  "amendments/",
  "amendments/01.jsonl",
  "control/",
  "control/.tmp/",
  "control/requests/",
  "control/outcomes/",
  "control/rejected/",
  "control/log.jsonl",
  "control/snapshot.json",
  "control/events.jsonl",
  "control/events/",
  "control/events/20260101T000000Z-AAAAAA.jsonl",
];

/** The canary directory: a file, a directory with a file, a FIFO, and a name that must stay absent. */
export async function makeCanary(dir: string): Promise<void> {
  await Deno.mkdir(`${dir}/dir`, { recursive: true });
  await Deno.chmod(dir, 0o755);
  await Deno.writeTextFile(`${dir}/file`, "canary file\n");
  await Deno.writeTextFile(`${dir}/dir/inner`, "canary inner\n");
  const mk = await new Deno.Command("mkfifo", { args: [`${dir}/fifo`] }).output();
  if (!mk.success) throw new Error("mkfifo failed");
}

/** Kind, mode and content of every entry under (and including) the canary, sorted: equal strings, equal trees. */
export async function canaryDigest(dir: string): Promise<string> {
  const out: string[] = [];
  async function walk(path: string, rel: string): Promise<void> {
    const st = await Deno.lstat(path);
    const mode = ((st.mode ?? 0) & 0o7777).toString(8);
    if (st.isSymlink) out.push(`${rel} link ${mode} -> ${await Deno.readLink(path)}`);
    else if (st.isDirectory) {
      out.push(`${rel} dir ${mode}`);
      const names: string[] = [];
      for await (const e of Deno.readDir(path)) names.push(e.name);
      for (const n of names.sort()) await walk(`${path}/${n}`, `${rel}/${n}`);
    } else if (st.isFile) out.push(`${rel} file ${mode} ${JSON.stringify(await Deno.readTextFile(path))}`);
    else out.push(`${rel} special ${mode} size=${st.size}`);
  }
  await walk(dir, ".");
  return out.join("\n");
}

/** Plant `rel` (store-relative) as a link of `kind` into the canary; creates its parent directories (0700). */
export async function plant(store: string, rel: string, kind: PlantKind, canary: string): Promise<string> {
  const path = `${store}/${rel.replace(/\/$/, "")}`;
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true, mode: 0o700 });
  await Deno.chmod(store, 0o700);
  const target = { file: `${canary}/file`, dir: `${canary}/dir`, fifo: `${canary}/fifo`, dangling: `${canary}/gone` }[
    kind
  ];
  await Deno.symlink(target, path);
  return path;
}

/** Pids (other than this process) whose command line mentions `needle` (`ps`, so no /proc read permission). */
export async function processesMentioning(needle: string): Promise<number[]> {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid=,args="], stdout: "piped" }).output();
  const pids: number[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (!m || Number(m[1]) === Deno.pid || !m[2]!.includes(needle) || m[2]!.startsWith("ps ")) continue;
    pids.push(Number(m[1]));
  }
  return pids;
}

/** Run `n` tasks at a time. */
export async function pool<T>(items: T[], n: number, fn: (item: T, worker: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async (_, w) => {
    while (next < items.length) await fn(items[next++]!, w);
  }));
}
