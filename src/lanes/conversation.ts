/**
 * Conversation transports (codex `app-server`, docs/reference/providers.md §3.1): the CLI keeps stdin open and speaks
 * a protocol on stdout; the generic CLI session (src/lanes/cli_session.ts) hands the conversation the process's input
 * and feeds it every stdout line, and the conversation returns the lines the lane's parser reads.
 */
import type { JsonObject } from "./_json.ts";

/** The input side of a conversation: lines written to the CLI's stdin, kept open. */
export interface ConversationIo {
  /** Write one line (the newline is added); never throws (a CLI that stopped reading ends by itself). */
  write(line: string): void;
  /** Close stdin once the pending lines are written. */
  closeInput(): void;
}

/**
 * A session whose CLI keeps stdin open and speaks a protocol on stdout (codex `app-server`): the conversation
 * decides what to write and turns each decoded stdout object into the lines the profile's parser reads.
 */
export interface SessionConversation {
  /** Start talking (called once, right after the process spawned). */
  open(): void;
  /** One decoded stdout object → the parser's lines (possibly none). */
  receive(raw: JsonObject): JsonObject[];
  /** A stdout line that is not a JSON object → the parser's lines (the protocol is broken: end the turn). */
  garbage(line: string): JsonObject[];
}

/** How to run a conversation session: its arguments, and the conversation over the process's stdin. */
export interface ConversationSpec {
  args: string[];
  create(io: ConversationIo): SessionConversation;
}
