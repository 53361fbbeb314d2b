/**
 * The one exit-code table (src/errors.ts) against docs/exit_codes.md, and the typing that makes a misspelt code fail
 * `deno check` (the `@ts-expect-error` lines below fail the check if a bad code ever type-checks).
 */
import assert from "node:assert/strict";
import {
  type Code,
  EXIT,
  Exit,
  findingCode,
  NotFoundError,
  PacketError,
  RunFailedError,
  UsageError,
} from "../src/errors.ts";
import { ControlError } from "../src/control/errors.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const DOC = await Deno.readTextFile(`${ROOT}docs/exit_codes.md`);

/** The rows of the markdown table that starts at the first line after `from` beginning with `|`. */
function tableRows(from: number): string[][] {
  const lines = DOC.slice(from).split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|").slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

const backticked = (cell: string): string[] => [...cell.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
const exitsOf = (code: Code): readonly number[] => {
  const e: number | readonly number[] = EXIT[code];
  return typeof e === "number" ? [e] : e;
};

async function sourceText(dir: string): Promise<string> {
  let out = "";
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out += await sourceText(path);
    else if (e.name.endsWith(".ts")) out += await Deno.readTextFile(path);
  }
  return out;
}

Deno.test("docs/exit_codes.md lists every code of the EXIT table with its exits, and nothing else", () => {
  const rows = tableRows(DOC.indexOf("## Every error code"));
  const doc = new Map(rows.map(([code, exits]) => [backticked(code!)[0]!, exits!.split(", ").map(Number)]));
  const table = new Map((Object.keys(EXIT) as Code[]).map((c) => [c, [...exitsOf(c)]]));
  assert.deepEqual(new Map([...doc].sort()), new Map([...table].sort()));
});

Deno.test("the summary table has a row per exit code, and its example codes exit as their row says", async () => {
  const rows = tableRows(0);
  assert.deepEqual(rows.map((r) => Number(r[0])).sort((a, b) => a - b), Object.values(Exit).sort((a, b) => a - b));
  const packetSources = (await sourceText(`${ROOT}src/packet`)) + (await sourceText(`${ROOT}src/contract`));
  for (const [exit, , codes] of rows) {
    for (const code of backticked(codes!)) {
      if (code in EXIT) {
        assert.ok(exitsOf(code as Code).includes(Number(exit)), `${code} is listed under exit ${exit}`);
      } else {
        // Not a table code: the kind of a load or lint finding, which always exits 3.
        assert.equal(exit, "3", `${code} is neither in EXIT nor a finding kind under exit 3`);
        assert.ok(packetSources.includes(`"${code}"`), `${code} is not a finding kind of src/packet or src/contract`);
      }
    }
  }
});

Deno.test("every code of the table is thrown somewhere, and every error class exits as the table says", async () => {
  const src = (await sourceText(`${ROOT}src`)) + (await Deno.readTextFile(`${ROOT}main.ts`));
  for (const code of Object.keys(EXIT)) assert.ok(src.includes(`"${code}"`), `${code} is in EXIT but never used`);
  assert.equal(new UsageError("invalid_value", "x").exit, EXIT.invalid_value);
  assert.equal(new NotFoundError("unknown_prompt", "x").exit, EXIT.unknown_prompt);
  assert.equal(new RunFailedError("preflight_failed", "x").exit, EXIT.preflight_failed);
  assert.equal(new PacketError(findingCode("dependency_cycle"), "x").exit, Exit.packet);
  for (const code of ["no_run", "empty_steer", "invalid_snapshot", "workspace_packet_binding_required"] as const) {
    assert.equal(new ControlError(code, "x").exit, EXIT[code], code);
  }
});

/** Never called: each line must fail `deno check` (the `task check` step runs over tests/). */
function _misspeltCodesDoNotTypeCheck(): void {
  // @ts-expect-error a misspelt code
  new UsageError("unknwn_flag", "x");
  // @ts-expect-error a code of another exit (invalid_value exits 2, not 4)
  new NotFoundError("invalid_value", "x");
  // @ts-expect-error the Control API throws only codes with one exit
  new ControlError("detached_run_failed", "x");
  // @ts-expect-error a bare string is neither a packet code nor a finding's kind
  new PacketError("anything", "x");
}
void _misspeltCodesDoNotTypeCheck;
