/** `depends_on` graph helpers (docs/reference/packet.md §5, docs/reference/runner.md §3): cycle detection and the blocking check. */

/** A prompt as far as dependencies are concerned. */
export interface DependencyNode {
  id: string;
  dependsOn: string[];
}

/**
 * Find one dependency cycle, returned as ids with the first repeated at the end (`["02", "03", "02"]`), or null.
 * Unknown dependency ids are ignored here (they are reported separately).
 */
export function dependencyCycle(nodes: readonly DependencyNode[]): string[] | null {
  const deps = new Map(nodes.map((n) => [n.id, n.dependsOn]));
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    state.set(id, 1);
    stack.push(id);
    for (const d of deps.get(id) ?? []) {
      if (!deps.has(d)) continue;
      const s = state.get(d);
      if (s === 1) return [...stack.slice(stack.indexOf(d)), d];
      if (s === undefined) {
        const found = visit(d);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 2);
    return null;
  };
  for (const n of nodes) {
    if (state.has(n.id)) continue;
    const found = visit(n.id);
    if (found) return found;
  }
  return null;
}

/**
 * The blocking check of docs/reference/runner.md §3: the prompt's `depends_on` ids that are not in `completedIds` (completed
 * earlier in this run or `completed` in progress.log), in declaration order.
 */
export function blockedBy(prompt: DependencyNode, completedIds: ReadonlySet<string> | readonly string[]): string[] {
  const done = completedIds instanceof Set ? completedIds : new Set(completedIds as readonly string[]);
  return prompt.dependsOn.filter((d) => !done.has(d));
}
