/**
 * Run preflight (runner.md §1 step 4): every configured repo exists, is a directory and is inside a git work tree
 * (with no repos the packet dir is checked); every lane the selection uses is probed.
 */
import { laneFor } from "../lanes/mod.ts";
import type { Packet, Prompt } from "../packet/types.ts";
import { insideWorkTree } from "./git.ts";

/** Problems found, one human line each (empty when ready). */
export async function runPreflightChecks(packet: Packet, prompts: Prompt[]): Promise<string[]> {
  const problems: string[] = [];
  const dirs = packet.repos.length
    ? packet.repos.map((r) => ({ label: `repo ${r.name}`, path: r.path }))
    : [{ label: "packet dir", path: packet.dir }];
  for (const d of dirs) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(d.path);
    } catch {
      problems.push(`${d.label}: ${d.path} does not exist`);
      continue;
    }
    if (!info.isDirectory) {
      problems.push(`${d.label}: ${d.path} is not a directory`);
      continue;
    }
    if (!(await insideWorkTree(d.path))) problems.push(`${d.label}: ${d.path} is not inside a git work tree`);
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
