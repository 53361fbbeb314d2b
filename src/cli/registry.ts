/**
 * Every subcommand with the Deno permissions it keeps (docs/reference/cli.md §6). This file is the single definition of those
 * sets: main.ts revokes the rest at dispatch, `compile` bakes in their union, and black-box tests spawn each
 * command with exactly its set. Command modules load lazily so a quick command never pays for the runner.
 */
import type { CommandEntry, Permission } from "./frame.ts";
import { OBSERVE, READ_ONLY, RUNNER } from "./permissions.ts";

/** All subcommands, in help order. */
export const COMMANDS: CommandEntry[] = [
  { path: ["run"], summary: "execute prompts", permissions: RUNNER, load: () => import("./run.ts") },
  { path: ["plan"], summary: "show what run would do", permissions: READ_ONLY, load: () => import("./plan.ts") },
  { path: ["list"], summary: "prompts with their progress", permissions: READ_ONLY, load: () => import("./list.ts") },
  {
    path: ["verify"],
    summary: "evaluate enforced contracts now, no provider",
    permissions: RUNNER,
    load: () => import("./verify.ts"),
  },
  { path: ["status"], summary: "the rollup report", permissions: OBSERVE, load: () => import("./status.ts") },
  {
    path: ["repair"],
    summary: "run a repair attempt for one prompt",
    permissions: RUNNER,
    load: () => import("./repair.ts"),
  },
  {
    path: ["replay"],
    summary: "re-render a recorded run's events in any view",
    permissions: ["read", "env", "run"],
    load: () => import("./replay.ts"),
  },
  {
    path: ["control", "status"],
    summary: "the live snapshot of the current run",
    permissions: OBSERVE,
    load: () => import("./control/status.ts"),
  },
  {
    path: ["control", "events"],
    summary: "replay and follow a run's events",
    permissions: OBSERVE,
    load: () => import("./control/events.ts"),
  },
  {
    path: ["control", "log"],
    summary: "the control audit log",
    permissions: OBSERVE,
    load: () => import("./control/log.ts"),
  },
  {
    path: ["control", "view"],
    summary: "change how a live run renders",
    permissions: ["read", "write", "env", "sys"],
    load: () => import("./control/view.ts"),
  },
  {
    path: ["control", "steer"],
    summary: "send guidance to the live agent",
    permissions: ["read", "write", "env", "sys"],
    load: () => import("./control/steer.ts"),
  },
  {
    path: ["control", "contract"],
    summary: "packet contract, enforced contract, amendments and diff",
    permissions: OBSERVE,
    load: () => import("./control/contract.ts"),
  },
  {
    path: ["control", "amend"],
    summary: "add requirements to a prompt's contract",
    permissions: ["read", "write", "env", "sys"],
    load: () => import("./control/amend.ts"),
  },
  {
    path: ["control", "relax"],
    summary: "remove or weaken a prompt's contract (needs --confirm)",
    permissions: ["read", "write", "env", "sys"],
    load: () => import("./control/relax.ts"),
  },
  {
    path: ["control", "serve"],
    summary: "serve the control plane over HTTP (API, events, dashboard)",
    // net: listens (loopback by default); write: request files and the audit log, like control steer.
    permissions: ["read", "write", "env", "sys", "net"],
    load: () => import("./control/serve.ts"),
  },
  {
    path: ["packet", "lint"],
    summary: "static checks",
    permissions: READ_ONLY,
    load: () => import("./packet/lint.ts"),
  },
  {
    path: ["packet", "preflight"],
    summary: "readiness report; exit 1 when not runnable",
    permissions: ["read", "run", "env"],
    load: () => import("./packet/preflight.ts"),
  },
  {
    path: ["packet", "doctor"],
    summary: "readiness and authoring report",
    permissions: ["read", "run", "env"],
    load: () => import("./packet/doctor.ts"),
  },
  {
    path: ["packet", "explain"],
    summary: "effective options per prompt, with their sources",
    permissions: READ_ONLY,
    load: () => import("./packet/explain.ts"),
  },
  {
    path: ["packet", "new"],
    summary: "create a packet that lints clean",
    permissions: ["read", "write", "env"],
    load: () => import("./packet/new.ts"),
  },
  {
    path: ["prompt", "new"],
    summary: "add a prompt rendered from a template",
    permissions: ["read", "write", "env"],
    load: () => import("./prompt_new.ts"),
  },
  {
    path: ["checklist", "sync"],
    summary: "write checklist files next to prompts",
    permissions: ["read", "write", "env"],
    load: () => import("./checklist_sync.ts"),
  },
  {
    path: ["stop"],
    summary: "stop the live run gracefully",
    // env: workspace ids resolve through $XDG_DATA_HOME (docs/reference/workspace.md §5).
    permissions: ["read", "run", "env", "sys"],
    load: () => import("./stop.ts"),
  },
  {
    path: ["workspace", "prepare"],
    summary: "create or update a workspace's clones and state root",
    permissions: ["read", "write", "run", "env", "sys"],
    load: () => import("./workspace/prepare.ts"),
  },
  {
    path: ["start"],
    summary: "start a run in the background and print its run id",
    permissions: RUNNER,
    load: () => import("./start.ts"),
  },
  {
    path: ["watch"],
    summary: "periodic health samples for unattended runs",
    permissions: ["read", "write", "env", "sys"],
    load: () => import("./watch.ts"),
  },
  {
    path: ["workspace", "status"],
    summary: "the status rollup plus one line per clone",
    permissions: ["read", "run", "env", "sys"],
    load: () => import("./workspace/status.ts"),
  },
  {
    path: ["agent-control"],
    summary: "inside a controlled session: progress, continue, repeat, finish or blocked",
    // Creates one file in the iteration's private directory named by the environment; nothing else.
    permissions: ["read", "write", "env"],
    load: () => import("./agent_control.ts"),
  },
  {
    path: ["workspace", "list"],
    summary: "registered workspaces and their run state",
    permissions: OBSERVE,
    load: () => import("./workspace/list.ts"),
  },
  {
    path: ["capabilities"],
    summary: "installed capabilities a workspace manifest may require",
    permissions: READ_ONLY,
    load: () => import("./capabilities.ts"),
  },
  {
    path: ["workspace", "plan"],
    summary: "what workspace prepare would do; writes nothing",
    // run: `git --no-optional-locks status` of present clones (never writes the index).
    permissions: ["read", "run", "env", "sys"],
    load: () => import("./workspace/plan.ts"),
  },
  {
    path: ["workspace", "doctor"],
    summary: "read-only readiness; exit 1 when not ready",
    permissions: ["read", "run", "env", "sys"],
    load: () => import("./workspace/doctor.ts"),
  },
  {
    path: ["workspace", "import-state"],
    summary: "import a legacy progress.log into an empty workspace",
    permissions: ["read", "write", "env", "sys"],
    load: () => import("./workspace/import_state.ts"),
  },
  {
    path: ["completions"],
    summary: "shell completion script: bash, zsh or fish",
    // Reads the command modules for their flags; nothing else.
    permissions: READ_ONLY,
    load: () => import("./completions.ts"),
  },
  {
    path: ["init"],
    summary: "create the config home's profiles and templates",
    // Writes only under the config home ($XDG_CONFIG_HOME/prompt_runner); never replaces a file.
    permissions: ["read", "write", "env"],
    load: () => import("./init.ts"),
  },
  {
    path: ["profile", "new"],
    summary: "write a home profile",
    permissions: ["read", "write", "env"],
    load: () => import("./profile/new.ts"),
  },
  {
    path: ["profile", "list"],
    summary: "home and built-in profiles",
    permissions: READ_ONLY,
    load: () => import("./profile/list.ts"),
  },
  {
    path: ["template", "list"],
    summary: "prompt templates: packet, home, built-in",
    permissions: READ_ONLY,
    load: () => import("./template_list.ts"),
  },
];

/** Union of every command's permissions: what `compile` bakes in. */
export function permissionUnion(): Permission[] {
  const all = new Set<Permission>();
  for (const c of COMMANDS) for (const p of c.permissions) all.add(p);
  return [...all].sort();
}

/** Find the command whose path is the longest prefix of argv's leading words. */
export function findCommand(argv: string[]): { entry: CommandEntry; rest: string[] } | null {
  let best: CommandEntry | null = null;
  for (const c of COMMANDS) {
    if (c.path.every((w, i) => argv[i] === w) && (!best || c.path.length > best.path.length)) best = c;
  }
  return best ? { entry: best, rest: argv.slice(best.path.length) } : null;
}
