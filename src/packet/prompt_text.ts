/** Pure helpers over prompt file names and bodies (docs/reference/packet.md §4–§6): names, headings, sections, commit messages. */

/** The leading digits of a file name, or null. */
export function filenamePrefix(basename: string): string | null {
  return /^(\d+)/.exec(basename)?.[1] ?? null;
}

/**
 * Display name derived from a file name: strip `.prompt.md` (or `.md`), leading digits and one following `-`/`_`,
 * turn `_`/`-` into spaces, capitalise each word (`03_write_the-guide.prompt.md` → `Write The Guide`).
 */
export function nameFromFilename(basename: string): string {
  const stem = basename.replace(/\.prompt\.md$/, "").replace(/\.md$/, "");
  return stem
    .replace(/^\d+[-_]?/, "")
    .replace(/[_-]/g, " ")
    .split(/\s+/)
    .filter((w) => w !== "")
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(" ");
}

/** The text of the first `# ` heading of a body, or null. */
export function firstHeading(body: string): string | null {
  const m = /^#[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(body);
  return m ? m[1]!.trim() || null : null;
}

/** The content of a `## <title>` section (up to the next `## ` heading), or null when absent. */
export function bodySection(body: string, title: string): string | null {
  const lines = body.split("\n");
  const want = title.toLowerCase();
  const start = lines.findIndex((l) => /^##[ \t]+/.test(l) && l.replace(/^##[ \t]+/, "").trim().toLowerCase() === want);
  if (start < 0) return null;
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (/^##[ \t]/.test(l)) break;
    out.push(l);
  }
  return out.join("\n");
}

/** The `- ` bullets of a section, trimmed, with surrounding backticks removed. */
export function sectionBullets(section: string): string[] {
  return section
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("-"))
    .map((l) => l.replace(/^-+/, "").trim().replace(/^`+/, "").replace(/`+$/, "").trim())
    .filter((l) => l !== "");
}

/**
 * The commit message of docs/reference/packet.md §6: from the first paragraph of `## Mission` (its first line verbatim when it
 * contains `:` or starts with `feat`, else `feat: <line>`), else `feat: <name>`.
 */
export function deriveCommitMessage(body: string, name: string): string {
  const mission = bodySection(body, "Mission");
  if (mission !== null) {
    const paragraph = mission.trim().split(/\n[ \t]*\n/)[0] ?? "";
    const first = paragraph.split("\n")[0]?.trim() ?? "";
    if (first !== "") return first.includes(":") || first.startsWith("feat") ? first : `feat: ${first}`;
  }
  return `feat: ${name}`;
}

/** Whether a body still carries scaffold placeholder markers (`<!-- prompt_runner:placeholder … -->`). */
export function hasPlaceholderMarkers(body: string): boolean {
  return /<!--\s*prompt_runner:placeholder\b/.test(body);
}
