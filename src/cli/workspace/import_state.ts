/**
 * `workspace import-state [TARGET] [--source FILE] [--json]` (docs/reference/workspace.md §10.3): carry a packet-local
 * legacy run's completed prompts into an empty workspace runtime, with a digest-bearing receipt.
 */
import type { CommandSpec } from "../frame.ts";
import { PromptRunnerError, UsageError } from "../../errors.ts";
import { recordStoreRefusal } from "../../control/mod.ts";
import { loadPacket } from "../../packet/load.ts";
import { storePaths, storeRootForPacket } from "../../store/paths.ts";
import { loadWorkspaceManifest } from "../../workspace/manifest.ts";
import { importState } from "../../workspace/import_state.ts";
import { resolveTarget } from "../target.ts";

/** The packet-local progress file of the legacy run: `--packet` as given, else the packet in the repository's source. */
async function defaultSource(
  manifest: string,
  repo: string,
  packetPath: string,
  packetDir: string,
  packetFlag: string | null,
): Promise<string> {
  if (packetFlag !== null) {
    const abs = packetFlag.startsWith("/") ? packetFlag : `${Deno.cwd()}/${packetFlag}`;
    return storePaths(storeRootForPacket(abs)).progress;
  }
  const m = await loadWorkspaceManifest(manifest);
  const source = m.repositories.find((r) => r.name === repo)?.source ?? null;
  const dir = source === null ? packetDir : packetPath ? `${source}/${packetPath}` : source;
  return storePaths(storeRootForPacket(dir)).progress;
}

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET [PACKET]] [--source FILE] [--expect-sha256 HEX] [--json]",
  description: "One-time import of a packet-local progress.log into a prepared workspace whose runtime has no " +
    "progress yet: only each prompt's latest `completed` record, every id checked against the packet. Refused while " +
    "a run is active or when the destination already has progress. Writes a receipt with the sha256 of the source " +
    "and of the result under <store>/imports/ and prints it. Default source: the packet's .prompt_runner/progress.log " +
    "in the repository's source checkout (or in the --packet directory as given; PACKET after the target is the " +
    "same as --packet, the prompt_runner_sdk's form). Every refusal is recorded in the " +
    "workspace's control audit log (control log).",
  flags: {
    source: { type: "string", value: "FILE", description: "the legacy progress.log to import" },
    "expect-sha256": {
      type: "string",
      value: "HEX",
      description: "refuse unless the source's sha256 is this (the digest you checked)",
    },
    workspace: { type: "string", value: "M", description: "a workspace manifest or prepared workspace id" },
    packet: { type: "string", value: "DIR", description: "a packet inside the workspace's clones or sources" },
  },
  async run(ctx) {
    // `import-state MANIFEST PACKET` (the sdk's form) is `import-state --workspace MANIFEST --packet PACKET`.
    const sdkForm = ctx.positionals.length === 2 && ctx.flags.packet === undefined && ctx.flags.workspace === undefined;
    const positionals = sdkForm ? [] : ctx.positionals;
    const flags = sdkForm ? { ...ctx.flags, workspace: ctx.positionals[0]!, packet: ctx.positionals[1]! } : ctx.flags;
    const t = await resolveTarget(positionals, flags, { idsFollow: false, createStore: true });
    if (t.kind !== "workspace" || !t.workspace) {
      throw new UsageError("not_a_workspace", `${t.packetDir} is a packet, not a workspace`, {
        hints: ["import-state fills a workspace: prompt_runner workspace import-state <id|manifest>"],
      });
    }
    const w = t.workspace;
    const expectText = ctx.flags["expect-sha256"];
    const expectSha256 = typeof expectText === "string" ? expectText.trim().toLowerCase() : undefined;
    if (expectSha256 !== undefined && !/^[0-9a-f]{64}$/.test(expectSha256)) {
      throw new UsageError("invalid_value", `--expect-sha256 does not take "${expectText}"; expected 64 hex digits`);
    }
    const packetFlag = typeof flags.packet === "string" ? flags.packet : null;
    const source = typeof ctx.flags.source === "string"
      ? (ctx.flags.source.startsWith("/") ? ctx.flags.source : `${Deno.cwd()}/${ctx.flags.source}`)
      : await defaultSource(w.manifest, w.repo, w.packetPath, t.packetDir, packetFlag);
    let receipt;
    try {
      receipt = await importState({
        workspace: w.id,
        manifest: w.manifest,
        packet: await loadPacket(t.packetDir),
        storeRoot: t.storeRoot,
        source,
        ...(expectSha256 !== undefined ? { expectSha256 } : {}),
      });
    } catch (e) {
      // A refused import is on the record of the workspace it was aimed at (docs/audit.md).
      if (e instanceof PromptRunnerError) {
        const params = {
          workspace: w.id,
          source,
          ...(expectSha256 !== undefined ? { expect_sha256: expectSha256 } : {}),
        };
        await recordStoreRefusal(t.storeRoot, { command: "import_state", params }, e);
      }
      throw e;
    }
    if (ctx.json) {
      ctx.stdout.write(JSON.stringify(receipt, null, 2) + "\n");
      return 0;
    }
    ctx.stdout.write(
      [
        `Imported ${receipt.completed.length} completed prompt(s) into ${w.id}: ${
          receipt.completed.map((c) => c.id).join(", ")
        }`,
        ...(receipt.not_imported.length
          ? [`not imported (they run again): ${receipt.not_imported.map((n) => `${n.id} ${n.status}`).join(", ")}`]
          : []),
        `source   ${receipt.source} sha256:${receipt.source_sha256}`,
        `result   ${receipt.destination} sha256:${receipt.result_sha256}`,
        `receipt  ${receipt.receipt}`,
        `resume with: prompt_runner run ${w.id} --remaining`,
      ].join("\n") + "\n",
    );
    return 0;
  },
};
