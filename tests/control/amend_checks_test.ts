/** Unit checks of the amendment refusals (src/control/amend_checks.ts): entry keys and unsatisfiable contracts. */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { writeDemoPacket } from "../control/_harness.ts";
import { entryKey, promptEnv, unsatisfiableReasons } from "../../src/control/amend_checks.ts";
import { amend } from "../../src/control/mod.ts";
import { storeRootForPacket } from "../../src/store/paths.ts";
import { loadPacket } from "../../src/packet/load.ts";

Deno.test("entryKey() treats path spellings alike and everything else by canonical JSON", () => {
  const repos = { app: "/r/app", packet: "/r" };
  assert.equal(entryKey("files_exist", "a.txt", repos), entryKey("files_exist", { path: "./a.txt" }, repos));
  assert.equal(entryKey("changed_paths_only", "./src/", repos), entryKey("changed_paths_only", "src//", repos));
  // For the allow-list, `src` (that path) and `src/` (everything under it) differ.
  assert.notEqual(entryKey("changed_paths_only", "src", repos), entryKey("changed_paths_only", "src/", repos));
  assert.notEqual(entryKey("files_exist", "a.txt", repos), entryKey("files_exist", "app:a.txt", repos));
  assert.equal(
    entryKey("commands", { exec: "x", args: ["1"] }, repos),
    entryKey("commands", { args: ["1"], exec: "x" }, repos),
  );
});

Deno.test("unsatisfiableReasons(): exist-and-absent, and a new file outside the allow-list; existing files are fine", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  await Deno.writeTextFile(`${dir}/app/present.txt`, "x");
  const packet = await loadPacket(dir);
  const env = promptEnv(packet, packet.prompts[0]!, storeRootForPacket(dir));
  assert.deepEqual(unsatisfiableReasons({ files_exist: ["a.txt"], files_absent: ["./a.txt"] }, env), [
    "files_exist a.txt contradicts files_absent a.txt",
  ]);
  assert.deepEqual(
    unsatisfiableReasons({ files_exist: ["present.txt", "lib/x.ts", "new.md"], changed_paths_only: ["lib/**"] }, env),
    ["files_exist new.md must be created, but changed_paths_only allows only lib/** in app"],
  );
  assert.deepEqual(unsatisfiableReasons({ files_exist: ["new.md"] }, env), [], "no allow-list: anything may change");
  // Through the API: the refusal names the reason and nothing is recorded.
  await assert.rejects(
    () => amend(dir, "1", { clause: "files_absent", entries: ["README.md"], reason: "r" }),
    (e: Error & { code?: string }) => e.code === "unsatisfiable_contract" && /contradicts/.test(e.message),
  );
});
