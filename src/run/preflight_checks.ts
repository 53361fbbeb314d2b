/**
 * Run preflight (docs/reference/runner.md §1 step 4): the process may spawn every executable the run needs (a narrow
 * `--allow-run=<list>` must cover them all); every configured repo exists, is a directory and is inside a git work
 * tree (with no repos the packet dir is checked); every lane the selection uses is probed.
 */
import { laneFor } from "../lanes/mod.ts";
import { whichExecutable } from "../lanes/cli_lane.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import { insideWorkTree } from "./git.ts";
import { repoHint } from "./readiness.ts";
import { allowRunFlag, type RunPermissions, runPermissionsFor } from "./run_permissions.ts";

/** Variables Deno refuses to pass to a child unless `--allow-run` is unrestricted. */
const LOADER_VARIABLE = /^(LD_|DYLD_)/;

function loaderVariables(): string[] {
  try {
    return Object.entries(Deno.env.toObject()).filter(([k, v]) => LOADER_VARIABLE.test(k) && v !== "").map(([k]) => k)
      .sort();
  } catch {
    return [];
  }
}

/**
 * Problems with the run permission, one human line each (empty when every needed executable may be spawned).
 * Queries only: nothing is spawned.
 */
async function runPermissionProblems(perms: RunPermissions): Promise<string[]> {
  if ((await Deno.permissions.query({ name: "run" })).state === "granted") return [];
  const flag = allowRunFlag(perms.run);
  const problems: string[] = [];
  for (const need of perms.needs) {
    const state = (await Deno.permissions.query({ name: "run", command: need.command })).state;
    if (state === "granted") continue;
    // Deno cannot grant a bare name it does not find on PATH, even when it is listed: say that instead.
    const missing = !need.command.includes("/") && whichExecutable(need.command) === null ? " and not on PATH" : "";
    problems.push(
      `run permission: "${need.command}" is not allowed${missing} (needed by ${need.needed_by.join("; ")}); ` +
        `start with ${flag}`,
    );
  }
  const loader = loaderVariables();
  if (loader.length > 0) {
    problems.push(
      `run permission: ${loader.join(", ")} ${loader.length === 1 ? "is" : "are"} set, and Deno spawns nothing ` +
        `under a narrow --allow-run while ${loader.length === 1 ? "it is; unset it" : "they are; unset them"} ` +
        "or start with --allow-run",
    );
  }
  return problems;
}

/** The run-permission check alone (also done under `--skip-preflight`: it probes nothing). */
export async function runPermissionChecks(
  packet: Packet,
  prompts: Prompt[],
  storeRoot: string | null,
): Promise<string[]> {
  return await runPermissionProblems(await runPermissionsFor(packet, prompts, storeRoot));
}

/** Problems found, one human line each (empty when ready). Permission problems stop the check before any spawn. */
export async function runPreflightChecks(
  packet: Packet,
  prompts: Prompt[],
  storeRoot: string | null = null,
): Promise<string[]> {
  const denied = await runPermissionChecks(packet, prompts, storeRoot);
  if (denied.length) return denied;
  const problems: string[] = [];
  const dirs = packet.repos.length
    ? packet.repos.map((r) => ({ label: `repo ${r.name}`, path: r.path }))
    : [{ label: "packet dir", path: packet.dir }];
  for (const d of dirs) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(d.path);
    } catch {
      problems.push(`${d.label}: ${d.path} does not exist (${repoHint("path_not_found", d.path)})`);
      continue;
    }
    if (!info.isDirectory) {
      problems.push(`${d.label}: ${d.path} is not a directory`);
      continue;
    }
    if (!(await insideWorkTree(d.path))) {
      problems.push(`${d.label}: ${d.path} is not inside a git work tree (${repoHint("not_git_repo", d.path)})`);
    }
  }
  const seen = new Set<string>();
  for (const p of prompts) {
    const name = p.options.provider;
    if (seen.has(name)) continue;
    seen.add(name);
    const probe = await laneFor(name).probe(p.options);
    if (!probe.available) {
      problems.push(`lane ${name}: ${probe.error ?? `${probe.executable ?? name} is not available`}`);
    }
  }
  return problems;
}
