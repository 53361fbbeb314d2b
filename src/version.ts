/** The product version. */
export const VERSION = "0.1.0";

/** Installed capabilities a packet or workspace may require (docs/agent-control.md), shown by `version --json`. */
export const CAPABILITIES: readonly string[] = ["agent_control.linear", "completion.agent_owned"];
