import assert from "node:assert/strict";
import { COMMANDS, findCommand, permissionUnion } from "../../src/cli/registry.ts";
import { denoFlagsFor, type Permission } from "../../src/cli/frame.ts";
import { tempDir } from "../support/fs.ts";

const PROBE = new URL("../support/permission_probe.ts", import.meta.url).pathname;
const ALL: Permission[] = ["read", "write", "run", "net", "env", "sys"];

async function probe(words: string[]): Promise<Record<Permission, string>> {
  await using dir = await tempDir();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "-A", PROBE, dir.path, ...words],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const READ_ONLY = [
  ["plan"],
  ["list"],
  ["packet", "lint"],
  ["status"],
  ["control", "status"],
  ["control", "events"],
  ["control", "log"],
  ["control", "contract"],
];

for (const words of READ_ONLY) {
  Deno.test(`scopePermissions() leaves "${words.join(" ")}" unable to write, spawn or open sockets`, async () => {
    const r = await probe(words);
    assert.equal(r.read, "ok");
    assert.equal(r.write, "NotCapable");
    assert.equal(r.run, "NotCapable");
    assert.equal(r.net, "NotCapable");
  });
}

Deno.test("scopePermissions() keeps exactly the declared set for every command", async () => {
  for (const entry of COMMANDS) {
    const r = await probe(entry.path);
    for (const p of ALL) {
      const kept = entry.permissions.includes(p);
      assert.equal(r[p] === "ok", kept, `${entry.path.join(" ")}: ${p} is ${r[p]} but declared=${kept}`);
    }
  }
});

Deno.test("read-only commands declare no write, run or net permission", () => {
  for (const words of READ_ONLY) {
    const entry = findCommand(words)!.entry;
    for (const p of ["write", "run", "net"] as const) {
      assert.ok(!entry.permissions.includes(p), `${words.join(" ")} declares ${p}`);
    }
  }
});

Deno.test("denoFlagsFor() and permissionUnion() give the compile flags", () => {
  assert.deepEqual(denoFlagsFor(["read", "net"]), ["--allow-read", "--allow-net=127.0.0.1"]);
  const union = permissionUnion();
  assert.ok(union.includes("read") && union.includes("write") && union.includes("run"));
  const deno = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)));
  const compile: string = deno.tasks.compile;
  // The binary may listen on any address `control serve --listen` names: it keeps the whole network permission.
  const wanted = denoFlagsFor(union).map((f) => f.startsWith("--allow-net=") ? "--allow-net " : f);
  for (const flag of wanted) assert.ok(compile.includes(flag), `compile task lacks ${flag}`);
});
