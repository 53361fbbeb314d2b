/**
 * Input into a live CLI session whose stdin stays open (docs/lanes.md, "Transports"): the prompt as the first
 * user line, in-turn texts, in-process interrupts, and the acknowledgements the CLI echoes. It decides when the
 * session's input ends: at a turn's end with nothing written and unanswered, stdin is closed and the CLI exits after
 * that turn; a turn that ends with input still unanswered (an interrupted turn, a text written after the turn's last
 * model request) is not the session's end, so its end line is swallowed.
 */
import type { ProviderEvent } from "../events/mod.ts";
import type { JsonObject } from "./_json.ts";
import { type InputAck, InputRefused, type LaneTransport } from "./types.ts";

/** What a stdout line is to the input machinery. */
export type InputLineKind = "echo" | "control" | "session_start" | "turn_end" | "other";

/** A CLI's stdin protocol for an input transport (claude stream-json: src/lanes/claude.ts). */
export interface InputProtocol {
  readonly transport: Exclude<LaneTransport, "exec">;
  /** The stdin line carrying one user message. */
  userLine(text: string): string;
  /** The stdin line that stops the running turn inside the process. */
  interruptLine(requestId: string): string;
  /** Classify a stdout line. */
  kind(raw: JsonObject): InputLineKind;
  /** The text of an `echo` line (the CLI's acknowledgement of one user line). */
  echoText(raw: JsonObject): string;
}

/** Where the input goes: the CLI's stdin (the shared process driver implements it). */
export interface InputSink {
  /** Write one line (a newline is added), in call order. */
  writeInput(line: string): Promise<void>;
  /** End of input. Idempotent; never throws. */
  closeInput(): void;
}

interface Pending {
  readonly text: string;
  resolve(ack: InputAck): void;
  reject(e: Error): void;
}

/** Whether an echo's text is the text written (line ends and surrounding whitespace as the CLI may normalise them). */
function sameInput(written: string, echoed: string): boolean {
  if (written === echoed) return true;
  const norm = (t: string) => t.replace(/\r\n?/g, "\n").trim();
  return norm(written) === norm(echoed);
}

/** The live input of one CLI session. */
export class LiveInput {
  readonly #proc: InputSink;
  readonly #protocol: InputProtocol;
  /** Written and not yet acknowledged, in write order. */
  #pending: Pending[] = [];
  #closed: string | null = null;
  /** The prompt's own echo is not an acknowledgement of a steer. */
  #promptEcho: string | null;
  #sessionStarted = false;
  #interrupts = 0;

  /** Start: write the prompt as the first user line. */
  constructor(proc: InputSink, protocol: InputProtocol, prompt: string) {
    this.#proc = proc;
    this.#protocol = protocol;
    this.#promptEcho = prompt;
    proc.writeInput(protocol.userLine(prompt)).catch(() => {/* the stream reports the exit */});
  }

  /** Write `text` as a user message; resolves on its echo. */
  send(text: string): Promise<InputAck> {
    if (this.#closed !== null) return Promise.reject(new InputRefused(this.#closed));
    return this.#write([this.#protocol.userLine(text)], text);
  }

  /** Stop the running turn, then continue the session with `text`; resolves on the echo of `text`. */
  interrupt(text: string): Promise<InputAck> {
    if (this.#closed !== null) return Promise.reject(new InputRefused(this.#closed));
    const id = `prompt-runner-interrupt-${++this.#interrupts}`;
    return this.#write([this.#protocol.interruptLine(id), this.#protocol.userLine(text)], text);
  }

  #write(lines: string[], text: string): Promise<InputAck> {
    let pending!: Pending;
    const ack = new Promise<InputAck>((resolve, reject) => {
      pending = { text, resolve, reject };
    });
    this.#pending.push(pending);
    (async () => {
      for (const line of lines) await this.#proc.writeInput(line);
    })().catch((e) => {
      this.#drop(pending, `the input could not be written: ${e instanceof Error ? e.message : String(e)}`);
    });
    return ack;
  }

  #drop(p: Pending, reason: string): void {
    const i = this.#pending.indexOf(p);
    if (i < 0) return;
    this.#pending.splice(i, 1);
    p.reject(new InputRefused(reason));
  }

  /**
   * One stdout line. Returns the events it stands for when the input machinery owns it (an echo, a control
   * response, a later session start, a turn end that is not the session's), or null to hand it to the parser.
   */
  observe(raw: JsonObject): ProviderEvent[] | null {
    switch (this.#protocol.kind(raw)) {
      case "echo": {
        const text = this.#protocol.echoText(raw);
        if (this.#promptEcho !== null && sameInput(text, this.#promptEcho)) {
          this.#promptEcho = null;
          return [];
        }
        const i = this.#pending.findIndex((p) => sameInput(p.text, text));
        if (i < 0) {
          // The CLI echoes its user lines in the order it read them: while the prompt's echo is outstanding, this is
          // it. Any other echo acknowledges nothing: a steer is delivered only when its own text comes back, never
          // because some line did (its record would say the agent was told what it was not).
          this.#promptEcho = null;
          return [];
        }
        const p = this.#pending.splice(i, 1)[0]!;
        p.resolve({ at: new Date().toISOString() });
        return [{ type: "message_sent", data: { content: p.text, role: "user" } }];
      }
      case "control":
        return [];
      case "session_start":
        if (!this.#sessionStarted) {
          this.#sessionStarted = true;
          return null;
        }
        return [];
      case "turn_end":
        // Input written and not yet answered: the CLI starts another turn for it.
        if (this.#pending.length > 0) return [];
        this.close("the turn ended before the input was written");
        return null;
      default:
        return null;
    }
  }

  /** No more input: refuse what is unanswered and later writes, and close stdin. Idempotent. */
  close(reason: string): void {
    if (this.#closed === null) this.#closed = reason;
    for (const p of this.#pending.splice(0)) p.reject(new InputRefused(reason));
    this.#proc.closeInput();
  }
}
