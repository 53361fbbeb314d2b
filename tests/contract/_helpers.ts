/** Shared helpers for contract tests: a verify context over a temp dir with one repo named `app`. */
import type { VerifyContext } from "../../src/contract/types.ts";
import { evaluateItems } from "../../src/contract/verify.ts";
import type { Contract, ReportItem } from "../../src/contract/types.ts";

/** A context whose default scope and `app` repo are `root`; `packet` is `<root>/packet` unless given. */
export function ctxFor(root: string, extra: Partial<VerifyContext> = {}): VerifyContext {
  return {
    promptId: "01",
    runId: null,
    packetDir: `${root}/packet`,
    storeRoot: `${root}/packet/.prompt_runner`,
    repos: { app: root, packet: `${root}/packet` },
    defaultScope: root,
    source: "manual",
    attempt: null,
    ...extra,
  };
}

/** Evaluate a one-clause contract and return its items. */
export async function itemsOf(
  root: string,
  contract: Record<string, unknown>,
  extra: Partial<VerifyContext> = {},
): Promise<ReportItem[]> {
  return await evaluateItems(contract as Contract, ctxFor(root, extra));
}

/** Evaluate a contract expected to yield exactly one item. */
export async function oneItem(
  root: string,
  contract: Record<string, unknown>,
  extra: Partial<VerifyContext> = {},
): Promise<ReportItem> {
  const items = await itemsOf(root, contract, extra);
  if (items.length !== 1) throw new Error(`expected one item, got ${items.length}`);
  return items[0]!;
}

import type { Packet, Prompt } from "../../src/packet/types.ts";

/** A prompt with just the fields the contract code reads (options are not used by it). */
export function promptFixture(over: Partial<Prompt> = {}): Prompt {
  return {
    id: "03",
    file: "/p/prompts/03_write_guide.prompt.md",
    relFile: "prompts/03_write_guide.prompt.md",
    phase: 1,
    sp: 1,
    name: "Write Guide",
    targets: [],
    commit: "feat: write guide",
    dependsOn: [],
    verify: {},
    simulate: null,
    body: "# Write guide\n",
    frontMatter: {},
    options: {} as Prompt["options"],
    cwd: "/p",
    legacyCommands: [],
    ...over,
  };
}

/** A packet around prompts, with repos name → path. */
export function packetFixture(dir: string, prompts: Prompt[], repos: Record<string, string> = {}): Packet {
  const repoList = Object.entries(repos).map(([name, path], i) => ({
    name,
    path,
    configuredPath: path,
    default: i === 0,
  }));
  return {
    dir,
    manifestPath: `${dir}/prompt_runner_packet.md`,
    name: "demo",
    promptDir: `${dir}/prompts`,
    profile: null,
    repos: repoList,
    defaultRepo: repoList[0] ?? null,
    phases: {},
    prompts,
    options: {} as Packet["options"],
    manifest: {},
    warnings: [],
    agentControl: null,
    execution: { completion: "verifier_owned", incomplete: "fail" },
  };
}
