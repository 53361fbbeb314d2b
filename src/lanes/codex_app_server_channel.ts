/**
 * One `codex app-server` conversation (docs/reference/providers.md §3.1): the handshake, one thread, the prompt's
 * turn, in-turn steers (`turn/steer`), in-process interrupts (`turn/interrupt` + `turn/start` on the same thread),
 * and the end of the session (stdin closed once the last turn ended). Everything the server says becomes exec lines
 * (src/lanes/codex_app_server.ts) for the codex parser. No process here: the session gives it a writer.
 */
import type { JsonObject } from "./_json.ts";
import { arr, isObject, obj, str } from "./_json.ts";
import {
  APP_SERVER_INVALID_REQUEST,
  classify,
  ExecLineTranslator,
  METHOD_NOT_FOUND,
  rpcLine,
  textInput,
  threadParams,
} from "./codex_app_server.ts";
import type { SessionSpec } from "./types.ts";
import type { ConversationIo, SessionConversation } from "./conversation.ts";

/** The version string we announce in `initialize`. */
const CLIENT_INFO = { name: "prompt_runner", title: "prompt_runner", version: "1" };

/** The answer to a steer: delivered (the server accepted it), or refused with the server's reason. */
export type SteerAck = { delivered: true; turnId: string } | { delivered: false; code: number; message: string };

type Pending = { method: string; resolve(msg: JsonObject | { error: { code: number; message: string } }): void };

/** A running app-server conversation. Feed every stdout object to {@link receive}. */
export class AppServerChannel implements SessionConversation {
  readonly #spec: SessionSpec;
  readonly #io: ConversationIo;
  readonly #translate = new ExecLineTranslator();
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  #threadId: string | null = null;
  #turnId: string | null = null;
  #turnActive = false;
  #closed = false;
  /** A `turn/start` queued behind an interrupt: sent once the interrupted turn reports its end. */
  #afterInterrupt: { text: string; beforeContinue(): Promise<void>; started(ok: boolean): void } | null = null;
  /** Texts of acknowledged steers whose user message the server has not yet put into the thread. */
  #unconsumed: string[] = [];

  readonly #beforeFirstTurn: () => Promise<void>;

  /** `beforeFirstTurn` runs once the thread exists, before its first `turn/start` is sent. */
  constructor(spec: SessionSpec, io: ConversationIo, beforeFirstTurn: () => Promise<void> = () => Promise.resolve()) {
    this.#spec = spec;
    this.#io = io;
    this.#beforeFirstTurn = beforeFirstTurn;
  }

  /** The thread id once `thread/start` (or `thread/resume`) answered. */
  get threadId(): string | null {
    return this.#threadId;
  }

  /** The running turn's id, or null between turns. */
  get activeTurnId(): string | null {
    return this.#turnActive ? this.#turnId : null;
  }

  /** Send `initialize`; the rest of the handshake follows the responses. */
  open(): void {
    this.#request("initialize", { clientInfo: CLIENT_INFO, capabilities: { experimentalApi: false } }, (res) => {
      if (this.#failed(res, "initialize")) return;
      this.#send({ method: "initialized" });
      const resume = this.#spec.resumeSessionId !== null;
      this.#request(resume ? "thread/resume" : "thread/start", threadParams(this.#spec), (r) => {
        if (this.#failed(r, resume ? "thread/resume" : "thread/start")) return;
        const id = str(obj(obj(r, "result"), "thread"), "id");
        if (id === null) return this.#fail("thread/start answered without a thread id");
        this.#threadId = id;
        this.#out.push(...this.#translate.threadStarted(id));
        // The first turn waits for `beforeFirstTurn` (the session's record of what runs before any command).
        void this.#beforeFirstTurn().catch(() => {}).then(() => this.#startTurn(this.#spec.prompt));
      });
    });
  }

  /** Exec lines produced since the last call (the session drains them after every {@link receive}). */
  #out: JsonObject[] = [];

  /** Handle one decoded stdout object; returns the exec lines it produced (possibly none). */
  receive(raw: JsonObject): JsonObject[] {
    const msg = classify(raw);
    switch (msg.kind) {
      case "response":
      case "error": {
        const p = this.#pending.get(msg.id);
        this.#pending.delete(msg.id);
        p?.resolve(msg.kind === "response" ? raw : { error: { code: msg.code, message: msg.message } });
        break;
      }
      case "request":
        // Approvals cannot arise (approvalPolicy never); anything else the server asks is refused, never left hanging.
        this.#send({
          id: msg.id,
          error: { code: METHOD_NOT_FOUND, message: `prompt_runner does not serve ${msg.method}` },
        });
        break;
      case "notification":
        this.#notification(msg.method, msg.params);
        break;
      case "invalid":
        this.#out.push({ type: "unparsed_app_server_message", message: msg.why });
        break;
    }
    return this.#out.splice(0);
  }

  /** A stdout line that is not JSON: the protocol is broken, the turn ends as a provider error. */
  garbage(line: string): JsonObject[] {
    this.#fail(`protocol error: the app-server wrote a line that is not JSON: ${line.slice(0, 200)}`, "protocol_error");
    return this.#out.splice(0);
  }

  /** Add guidance to the running turn (`turn/steer`); refused with -32600 when no turn is running. */
  steer(text: string): Promise<SteerAck> {
    const turnId = this.activeTurnId;
    if (this.#threadId === null || turnId === null || this.#closed) {
      return Promise.resolve({ delivered: false, code: APP_SERVER_INVALID_REQUEST, message: "no active turn" });
    }
    return new Promise((resolve) => {
      this.#request(
        "turn/steer",
        { threadId: this.#threadId, expectedTurnId: turnId, input: textInput(text) },
        (res) => {
          const err = obj(res, "error");
          if (err !== null) {
            resolve({ delivered: false, code: Number(err["code"] ?? 0), message: String(err["message"] ?? "") });
          } else {
            this.#unconsumed.push(text);
            resolve({ delivered: true, turnId: str(obj(res, "result"), "turnId") ?? turnId });
          }
        },
      );
    });
  }

  /**
   * Stop the running turn (`turn/interrupt`) and continue the thread with `text` (`turn/start`) once the server
   * reported the interrupted turn's end and `beforeContinue` (which terminates what that turn left running) settled.
   * Resolves on the server's answer to that `turn/start`: true when it accepted it; false when no turn runs.
   */
  interruptAndContinue(text: string, beforeContinue: () => Promise<void> = () => Promise.resolve()): Promise<boolean> {
    const turnId = this.activeTurnId;
    if (this.#threadId === null || turnId === null || this.#closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.#afterInterrupt = { text, beforeContinue, started: resolve };
      // An error answer means the turn already ended by itself: its end starts the guidance's turn all the same.
      this.#request("turn/interrupt", { threadId: this.#threadId, turnId }, () => {});
    });
  }

  /** End the conversation: close stdin (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#io.closeInput();
  }

  #notification(method: string, params: JsonObject): void {
    if (method === "turn/started") {
      this.#turnId = str(obj(params, "turn"), "id") ?? this.#turnId;
      this.#turnActive = true;
    }
    if (method === "item/started" || method === "item/completed") this.#consumed(obj(params, "item"));
    const lines = this.#translate.notification(method, params);
    if (method !== "turn/completed") {
      this.#out.push(...lines);
      return;
    }
    this.#turnActive = false;
    const next = this.#afterInterrupt;
    this.#afterInterrupt = null;
    if (next === null && this.#unconsumed.length > 0 && str(obj(params, "turn"), "status") === "completed") {
      // Acknowledged guidance the turn ended without reading gets a turn of its own: an acknowledged steer always
      // reaches the model before the stream ends.
      this.#startTurn(this.#unconsumed.splice(0).join("\n\n"));
      return;
    }
    if (next === null) {
      this.#out.push(...lines);
      this.close();
      return;
    }
    // The stopped tools' closing lines; the ended turn's own end is not a stream end.
    this.#out.push(...lines.filter((l) => l["type"] !== "turn.completed" && l["type"] !== "turn.failed"));
    // The same thread goes on (whether the interrupt took or the turn ended by itself first): the ended turn has no
    // closing line of its own; the guidance's turn ends the stream. Until the server names that turn, a steer is
    // refused (the runner delivers it after the stream, nothing is lost).
    void next.beforeContinue().catch(() => {}).then(() => this.#startTurn(next.text, next.started));
  }

  /** Settle every request still waiting for an answer (the server is gone): steers are refused, never left hanging. */
  abandon(): void {
    this.#closed = true;
    const gone = { error: { code: APP_SERVER_INVALID_REQUEST, message: "the app-server session ended" } };
    for (const p of [...this.#pending.values()]) p.resolve(gone);
    this.#pending.clear();
    const next = this.#afterInterrupt;
    this.#afterInterrupt = null;
    next?.started(false);
  }

  /** A user message item entered the thread: the steer with that text has reached the model. */
  #consumed(item: JsonObject | null): void {
    if (str(item, "type") !== "userMessage" || this.#unconsumed.length === 0) return;
    const text = arr(item, "content").filter(isObject).map((c) => str(c, "text") ?? "").join("");
    const i = this.#unconsumed.indexOf(text);
    if (i >= 0) this.#unconsumed.splice(i, 1);
  }

  #startTurn(text: string, started: (ok: boolean) => void = () => {}): void {
    this.#turnActive = true;
    this.#request("turn/start", { threadId: this.#threadId, input: textInput(text) }, (res) => {
      if (this.#failed(res, "turn/start")) return started(false);
      this.#turnId = str(obj(obj(res, "result"), "turn"), "id") ?? this.#turnId;
      started(true);
    });
  }

  /** True (after ending the conversation as a provider error) when a response is a JSON-RPC error. */
  #failed(res: JsonObject, method: string): boolean {
    const err = obj(res, "error");
    if (err === null) return false;
    this.#fail(`${method} failed: ${String(err["message"] ?? "JSON-RPC error")}`);
    return true;
  }

  /** End the turn as a provider error; a `code` travels as an embedded error document (unwrapCodexError). */
  #fail(message: string, code: string | null = null): void {
    if (this.#closed) return;
    const text = code === null ? message : JSON.stringify({ error: { code, message } });
    this.#out.push({ type: "error", message: text }, { type: "turn.failed", error: { message: text } });
    this.#turnActive = false;
    this.close();
  }

  #request(method: string, params: JsonObject, onAnswer: (res: JsonObject) => void): void {
    if (this.#closed) {
      // Nothing will answer any more (the conversation ended): answer now, so no caller waits forever.
      onAnswer({ error: { code: APP_SERVER_INVALID_REQUEST, message: "the app-server session ended" } });
      return;
    }
    const id = ++this.#nextId;
    this.#pending.set(id, { method, resolve: (m) => onAnswer(m as JsonObject) });
    this.#send({ id, method, params });
  }

  #send(msg: JsonObject): void {
    if (this.#closed) return;
    try {
      this.#io.write(rpcLine(msg));
    } catch {
      // The server is gone: its exit ends the stream.
    }
  }
}
