/**
 * How a run shows its progress besides the stream (docs/status.md): the live status line on a terminal
 * (src/render/status_line.ts), else the heartbeat (src/run/heartbeat.ts), both fed by {@link RunProgress}. The
 * display wraps the run's stdout and stderr, so every line the run writes passes through it.
 */
import { type ProgressFacts, progressLine, StatusLine } from "../render/mod.ts";
import type { RunIo } from "./context.ts";
import { Heartbeat } from "./heartbeat.ts";
import { RunProgress } from "./run_progress.ts";
import { writeCommand } from "../util/mod.ts";

/** What the command line decided (docs/status.md). */
export interface DisplayRequest {
  /** Draw the live status line (stdout is a terminal, not `--json`, no `NO_COLOR`, no `--no-status-line`). */
  statusLine: boolean;
  /** Heartbeat interval when no status line is drawn; null for none. */
  heartbeatMs: number | null;
}

/** How often the status line is redrawn while nothing is written (its clocks keep going). */
const REDRAW_MS = 1000;

function columns(): number {
  try {
    return Deno.consoleSize().columns;
  } catch {
    return 80;
  }
}

/** The heartbeat line: `· still running: <the status line>`. */
export function heartbeatLine(f: ProgressFacts, nowMs: number): string {
  return `· still running: ${progressLine(f, nowMs)}`;
}

/** A run's status line or heartbeat, around its output streams. */
export class ProgressDisplay {
  readonly progress: RunProgress;
  /** The streams the run writes to. */
  readonly io: RunIo;
  readonly #line: StatusLine | null = null;
  readonly #beat: Heartbeat | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #breakLine: () => void = () => {};

  constructor(io: RunIo, req: DisplayRequest | undefined, selected: number, now: () => number = Date.now) {
    this.progress = new RunProgress(selected, now);
    const facts = () => this.progress.facts();
    if (req?.statusLine && io.stdout.isTerminal && !io.json) {
      const line = new StatusLine({
        out: io.stdout,
        err: io.stderr.isTerminal ? io.stderr : null,
        text: () => progressLine(facts(), now()),
        columns,
      });
      this.#line = line;
      this.io = { ...io, stdout: line.stdout, stderr: line.stderr };
      this.#timer = setInterval(() => line.draw(), REDRAW_MS);
      Deno.unrefTimer(this.#timer);
      // A hard stop (a second Ctrl-C) exits without unwinding: the line is still removed.
      globalThis.addEventListener("unload", this.#onUnload);
      return;
    }
    const ms = req?.heartbeatMs ?? null;
    if (ms === null) {
      this.io = io;
      return;
    }
    const beat = new Heartbeat({
      intervalMs: ms,
      now,
      line: () => heartbeatLine(facts(), now()),
      write: (text) => {
        if (io.json) io.stderr.write(text + "\n");
        else {
          this.#breakLine();
          io.stdout.write(text + "\n");
        }
      },
    });
    this.#beat = beat;
    const marked = (out: RunIo["stdout"]): RunIo["stdout"] => ({
      isTerminal: out.isTerminal,
      write(text: string) {
        out.write(text);
        beat.output();
      },
      command(line: string) {
        writeCommand(out, line);
        beat.output();
      },
    });
    this.io = { ...io, stdout: marked(io.stdout), stderr: marked(io.stderr) };
    beat.start();
  }

  /** The heartbeat ends the stream's open line through this (the run context's `breakStream`). */
  attach(breakLine: () => void): void {
    this.#breakLine = breakLine;
  }

  /** The heartbeat, when one runs (tests). */
  get heartbeat(): Heartbeat | null {
    return this.#beat;
  }

  readonly #onUnload = () => this.#line?.stop();

  /** Stop drawing and beating; the status line is removed. */
  stop(): void {
    globalThis.removeEventListener("unload", this.#onUnload);
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#line?.stop();
    this.#beat?.stop();
  }
}
