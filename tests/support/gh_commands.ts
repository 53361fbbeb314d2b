/**
 * How the GitHub Actions runner reads workflow commands out of a step's log, for tests: lines split at LF, CR or
 * CRLF; a line whose start (after whitespace) is `::` or `##[` is a command; after `::stop-commands::<token>` nothing
 * is a command until the line `::<token>::`.
 */

/** One command the runner would act on. */
export interface ReadCommand {
  /** The line, leading whitespace trimmed. */
  line: string;
}

/** The commands the runner would act on in `log`, and the text lines it would show. */
export function readWorkflowCommands(log: string): { commands: string[]; text: string[] } {
  const commands: string[] = [];
  const text: string[] = [];
  let stop: string | null = null;
  for (const line of log.split(/\r\n|\r|\n/)) {
    const t = line.replace(/^[\s\u0085]+/, ""); // .NET's TrimStart: Unicode spaces and NEL
    if (stop !== null) {
      if (t.trimEnd() === `::${stop}::`) stop = null;
      else text.push(line);
      continue;
    }
    if (t.startsWith("::") || t.startsWith("##[")) {
      commands.push(t);
      const m = /^::stop-commands::(.+)$/.exec(t.trimEnd());
      if (m) stop = m[1]!;
      continue;
    }
    text.push(line);
  }
  return { commands, text };
}
