/** The product version. */
export const VERSION = "0.1.0";

/**
 * The prompt_runner_sdk release whose semantics this program implements: a workspace manifest's
 * `requires.prompt_runner` range is checked against it (docs/reference/workspace.md §1.1).
 */
export const SDK_COMPAT = "0.13.0";

/**
 * Installed capabilities a workspace manifest may require (`requires.capabilities`), in the sdk's vocabulary; shown
 * by `prompt_runner capabilities` and `version --json` (docs/reference/workspace.md §1.1 says what each one means).
 */
export const CAPABILITIES: readonly string[] = [
  "cli.strict_options",
  "selector.explicit_many",
  "selector.remaining",
  "selector.lower_bound",
  "selector.upper_bound",
  "verifier.argv",
  "verifier.typed_faults",
  "events.append_only",
  "containment.systemd_user",
  "workspace.independent_clone",
  "workspace.operator_owned_artifact",
  "workspace.legacy_state_import",
  "agent_control.linear",
  "completion.agent_owned",
];
