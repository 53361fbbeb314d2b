/** The public surface of src/workspace/: what other folders import from it (docs/architecture.md, Layers). */
export { loadWorkspaceManifest } from "./manifest.ts";
export { workspacePaths } from "./paths.ts";
export { prepareWorkspace } from "./prepare.ts";
export { findRegistered, isPrepared, listRegistry } from "./registry.ts";
export { resolveWorkspaceTarget } from "./resolve.ts";
export { runState } from "./run_state.ts";
export { withCloneLines, workspaceSection, workspaceSectionFromFiles } from "./status.ts";
