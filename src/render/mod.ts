/** The render module's public surface: renderer factory, header chrome, sinks and the git path diff. */

export type { EventSink, Renderer, RenderSettings, StreamState, TextSink } from "./types.ts";
export { type HeaderInfo, logHeader, logMarker, promptOutcomeLine, renderHeader, steerNotice } from "./chrome.ts";
export { eventsFileSink, fileSink, jsonLinesSink, ttySink } from "./sinks.ts";
export { gitPathDiff } from "./git_diff_sync.ts";
export { createRenderer, DEFAULT_DIFF_MAX_LINES, DEFAULT_TOOL_OUTPUT_MAX_LINES, switchRenderer } from "./create.ts";
export { type Color, type Paint, painter, stripAnsi } from "./ansi.ts";
export { toolChange } from "./diff.ts";
export { pathDiffPrefetchFor } from "./git_diff.ts";
export { replayEvents } from "./replay.ts";
export { summaryTable, writeSummaryTable } from "./summary_table.ts";
export { loadFullWidth, needsFullWidth, needsFullWidthIn } from "./text_width.ts";
export { attemptPhrase, plural, type ProgressFacts, progressLine, timelineLine, tokenPhrase } from "./status_words.ts";
export { StatusLine } from "./status_line.ts";
export { junitOutcome, junitPieces, junitReport, wholeSummaryStream } from "./junit.ts";
export { type AuditEntry, summaryMarkdown, summaryMarkdownPieces } from "./summary_markdown.ts";
export {
  annotationLines,
  type CiKind,
  GH_END_GROUP,
  ghError,
  ghGroup,
  ghNotice,
  gitlabSectionEnd,
  gitlabSectionStart,
  runAnnotations,
  runNotices,
} from "./ci_commands.ts";
