/**
 * guardWorkflowCommands (src/util/text_out.ts): whatever is written, in whatever chunks, the runner's command reader
 * (tests/support/gh_commands.ts) finds no command in it but the minted ones and the guard's own stop/resume pairs,
 * and shows every line byte for byte.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { guardWorkflowCommands, type TextOut } from "../../src/util/text_out.ts";
import { readWorkflowCommands } from "../support/gh_commands.ts";

function capture(): TextOut & { text: string } {
  const c = {
    text: "",
    isTerminal: false,
    write(t: string) {
      c.text += t;
    },
  };
  return c;
}

const TOKEN = "tok-1f2e";

/** The guard's output with its stop and resume lines removed (they are whole lines of their own). */
function withoutStops(log: string): string {
  return log.replaceAll(`::stop-commands::${TOKEN}\n`, "").replaceAll(`::${TOKEN}::\n`, "");
}

Deno.test("a line that starts like a workflow command is written between a stop and a resume", () => {
  const out = capture();
  const g = guardWorkflowCommands(out, () => TOKEN);
  g.write("hello\n::error title=x::injected\n  ::add-mask::s\n##[group]old\nok :: not at start\n");
  g.flush!();
  assert.equal(
    out.text,
    `hello\n::stop-commands::${TOKEN}\n::error title=x::injected\n::${TOKEN}::\n` +
      `::stop-commands::${TOKEN}\n  ::add-mask::s\n::${TOKEN}::\n` +
      `::stop-commands::${TOKEN}\n##[group]old\n::${TOKEN}::\nok :: not at start\n`,
  );
});

Deno.test("a command split over writes, and a CR line end, are caught", () => {
  const out = capture();
  const g = guardWorkflowCommands(out, () => TOKEN);
  for (const piece of ["a\r", " ", ":", ":warn", "ing::x", "\r\n", "#", "#", "[debug]y"]) g.write(piece);
  g.flush!();
  assert.deepEqual(readWorkflowCommands(out.text).commands, [
    `::stop-commands::${TOKEN}`,
    `::stop-commands::${TOKEN}`,
  ]);
  assert.equal(withoutStops(out.text), `a\r ::warning::x\r\n##[debug]y\n`.replace(/\n$/, "") + "\n");
});

Deno.test("minted commands pass, after the open line is ended", () => {
  const out = capture();
  const g = guardWorkflowCommands(out, () => TOKEN);
  g.write("partial");
  g.command!("::group::01 A");
  g.write(":");
  g.command!("::endgroup::");
  g.flush!();
  assert.deepEqual(readWorkflowCommands(out.text).commands, ["::group::01 A", "::endgroup::"]);
  assert.equal(out.text, "partial\n::group::01 A\n:\n::endgroup::\n");
});

Deno.test("a stop open at exit is ended by flush (it would outlive the process)", () => {
  const out = capture();
  const g = guardWorkflowCommands(out, () => TOKEN);
  g.write("::error::no line end");
  g.flush!();
  assert.ok(out.text.endsWith(`\n::${TOKEN}::\n`), JSON.stringify(out.text));
  assert.deepEqual(readWorkflowCommands(out.text + "::error::after\n").commands.at(-1), "::error::after");
});

Deno.test("property: any text in any chunks — no command gets through, every byte is kept", () => {
  const piece = fc.oneof(
    fc.constantFrom(
      "::",
      ":",
      "#",
      "##[",
      "[",
      "\n",
      "\r",
      "\r\n",
      " ",
      "\t",
      "\u00a0",
      "\u0085",
      "\u2028",
      "error::x",
      "group::",
      "a",
    ),
    fc.string({ maxLength: 6 }),
  );
  fc.assert(
    fc.property(fc.array(fc.array(piece, { maxLength: 8 }).map((p) => p.join("")), { maxLength: 12 }), (chunks) => {
      const out = capture();
      const g = guardWorkflowCommands(out, () => TOKEN);
      for (const c of chunks) g.write(c);
      g.flush!();
      const read = readWorkflowCommands(out.text);
      for (const c of read.commands) assert.equal(c.trimEnd(), `::stop-commands::${TOKEN}`, JSON.stringify(chunks));
      const input = chunks.join("");
      const kept = withoutStops(out.text);
      // The only byte the guard may add is the line end that closes a stop left open at exit.
      assert.ok(kept === input || kept === input + "\n", JSON.stringify({ chunks, kept }));
    }),
    { numRuns: 3000 },
  );
});
