/** The public surface of src/workspace/: what other folders import from it (docs/architecture.md, Layers). */
export { doctorLines, doctorWorkspace } from "./doctor.ts";
export { importState } from "./import_state.ts";
export { loadWorkspaceManifest, type WorkspaceManifest } from "./manifest.ts";
export { workspacePaths } from "./paths.ts";
export { planLines, planWorkspace } from "./plan.ts";
export { prepareWorkspace } from "./prepare.ts";
export { findRegistered, isPrepared, listRegistry } from "./registry.ts";
export { resolveWorkspaceTarget } from "./resolve.ts";
export { runState } from "./run_state.ts";
export { withCloneLines, workspaceSection, workspaceSectionFromFiles } from "./status.ts";
export { manifestArgument, manifestForTarget } from "./target_manifest.ts";
