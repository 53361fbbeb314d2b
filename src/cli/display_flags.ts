/**
 * `run` / `start` / `repair` flags of the live status line and the heartbeat (docs/status.md): the status line is drawn
 * when stdout is a terminal, output is not `--json`, `NO_COLOR` is unset or empty, `TERM` is not `dumb`, the process
 * is not under CI (`CI`, `GITHUB_ACTIONS`, `GITLAB_CI`; docs/ci.md) and `--no-status-line` is not given; otherwise a heartbeat line follows each `--heartbeat` interval of silence
 * (`PROMPT_RUNNER_HEARTBEAT`, default 30s; `off` for none).
 */
import type { CommandContext, FlagSpec } from "./frame.ts";
import type { DisplayRequest } from "../run/mod.ts";
import { HEARTBEAT_ENV, heartbeatInterval } from "../run/heartbeat.ts";
import { ciEnvironment, denoEnv } from "../util/ci_env.ts";

/** The flags. */
export const DISPLAY_FLAGS: Record<string, FlagSpec> = {
  "no-status-line": {
    type: "boolean",
    description: "do not draw the live status line on a terminal (NO_COLOR also turns it off)",
  },
  heartbeat: {
    type: "string",
    value: "DUR|off",
    description:
      `without the status line, print a progress line after each DUR of silence (default 30s; ${HEARTBEAT_ENV})`,
  },
};

/** What the flags, the environment and the output decide. Throws a usage error for a bad `--heartbeat`. */
export function displayRequest(
  ctx: Pick<CommandContext, "flags" | "json" | "stdout">,
  env: (name: string) => string | undefined = denoEnv,
): DisplayRequest {
  const flag = typeof ctx.flags.heartbeat === "string" ? ctx.flags.heartbeat : undefined;
  const heartbeatMs = heartbeatInterval(flag, env(HEARTBEAT_ENV));
  const statusLine = ctx.stdout.isTerminal && !ctx.json && ctx.flags["no-status-line"] !== true &&
    (env("NO_COLOR") ?? "") === "" && env("TERM") !== "dumb" && ciEnvironment(env) === null; // no animation in CI
  return { statusLine, heartbeatMs };
}
