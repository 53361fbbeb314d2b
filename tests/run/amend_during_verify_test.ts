/**
 * An amendment recorded while a prompt's contract is being verified takes its timing class from the verification
 * before (here `pre_verify`), so the verdict of that verification must not stand without it: the runner reads the
 * contract again once its verdict is recorded and verifies again with the amendment (docs/amendments.md). Here the
 * contract's own command amends it mid-verification, adding a file nobody writes: the prompt must not complete.
 */
import assert from "node:assert/strict";
import { ROOT, runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { makePacket, promptFile } from "./support.ts";

Deno.test("a contract amended during its verification is verified again with the amendment", async () => {
  await using dir = await tempDir();
  const pkt = `${dir.path}/pkt`;
  const amendCmd = [Deno.execPath(), "run", "-A", `${ROOT}/main.ts`, "control", "amend", pkt, "01"]
    .concat(["--add-file", "never_created.txt", "--reason", "scope", "--author", "ada"])
    .map((a) => `'${a}'`).join(" ");
  const yaml = `verify:
  files_exist: [hello.txt]
  commands:
    - {exec: sh, args: ["-c", "${amendCmd} >/dev/null 2>&1 || true"], timeout_ms: 60000}
recovery:
  repair: {enabled: false}
simulate:
  attempts:
    - writes: [{path: hello.txt, text: hello}]`;
  await makePacket(dir.path, { "01_a.prompt.md": promptFile("01", yaml) });
  const head = await git(`${pkt}/app`, "rev-parse", "HEAD");
  const r = await runCli(["run", pkt]);
  assert.notEqual(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout + r.stderr, /Prompt 01: its contract was amended during verification; verifying again/);
  assert.match(r.stdout + r.stderr, /never_created\.txt/);
  assert.equal(await git(`${pkt}/app`, "rev-parse", "HEAD"), head, "the prompt was not committed");
  const store = `${pkt}/.prompt_runner`;
  const read = async (f: string) => (await Deno.readTextFile(f)).trim().split("\n").map((l) => JSON.parse(l));
  const [amendment] = await read(`${store}/amendments/01.jsonl`);
  assert.equal(amendment.phase, "pre_verify");
  const verifications = await read(`${store}/verifications.jsonl`);
  assert.ok(verifications.length >= 2, "verified again after the amendment");
  const last = verifications.at(-1);
  assert.equal(last.status, "fail");
  assert.deepEqual(last.failures, ["files_exist#2"]); // the amendment's entry, added after files_exist#1
});
