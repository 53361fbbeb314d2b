import assert from "node:assert/strict";
import { defaultWorkspaceResolver, resolveTarget, setWorkspaceResolver } from "../../src/cli/target.ts";
import { NotFoundError, PacketError, UsageError } from "../../src/errors.ts";
import { tempDir } from "../support/fs.ts";
import { writePacket } from "../packet/_packet.ts";

Deno.test("resolveTarget() takes a first positional that is a packet dir and leaves the rest as ids", async () => {
  await using t = await tempDir();
  await writePacket(`${t.path}/demo`, "name: demo\n", {});
  const r = await resolveTarget(["demo", "3", "4"], {}, { cwd: t.path });
  assert.deepEqual(r, {
    kind: "packet",
    packetDir: `${t.path}/demo`,
    storeRoot: `${t.path}/demo/.prompt_runner`,
    rest: ["3", "4"],
    label: "demo",
  });
});

Deno.test("resolveTarget() with --packet treats every positional as an argument", async () => {
  await using t = await tempDir();
  await writePacket(`${t.path}/demo`, "name: demo\n", {});
  const r = await resolveTarget(["demo"], { packet: `${t.path}/demo` }, { cwd: "/" });
  assert.equal(r.packetDir, `${t.path}/demo`);
  assert.deepEqual(r.rest, ["demo"]);
});

Deno.test("resolveTarget() falls back to the current directory when the positional is not a target", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: here\n", {});
  const r = await resolveTarget(["03", "rename", "it"], {}, { cwd: t.path });
  assert.equal(r.packetDir, t.path);
  assert.deepEqual(r.rest, ["03", "rename", "it"]);
});

Deno.test("resolveTarget() refuses a path-like positional that does not resolve (exit 4)", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: here\n", {});
  for (const given of ["missing/dir", "ops.yml"]) {
    await assert.rejects(
      () => resolveTarget([given], {}, { cwd: t.path }),
      (e: unknown) => e instanceof NotFoundError && e.code === "target_not_found" && e.message.includes(given),
    );
  }
});

Deno.test("resolveTarget() names a directory without a manifest (exit 4)", async () => {
  await using t = await tempDir();
  await Deno.mkdir(`${t.path}/plain`);
  await assert.rejects(
    () => resolveTarget(["plain"], {}, { cwd: t.path }),
    (e: unknown) =>
      e instanceof NotFoundError && e.exit === 4 &&
      e.message === `${t.path}/plain is not a packet: prompt_runner_packet.md not found`,
  );
  await assert.rejects(() => resolveTarget([], {}, { cwd: `${t.path}/plain` }), NotFoundError);
});

Deno.test("resolveTarget() rejects leftover positionals when ids do not follow", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: here\n", {});
  await assert.rejects(() => resolveTarget([".", "extra"], {}, { cwd: t.path, idsFollow: false }), UsageError);
});

Deno.test("resolveTarget() routes workspaces through the hook; the default hook refuses unknown and invalid ones", async () => {
  await using t = await tempDir();
  await writePacket(`${t.path}/pk`, "name: pk\n", {});
  await Deno.writeTextFile(`${t.path}/ops.yml`, "id: ops\n");
  await assert.rejects(() => resolveTarget([], { workspace: "ops" }, { cwd: t.path }), NotFoundError);
  // An existing .yml positional is a workspace manifest: an invalid one is exit 3, naming the key.
  await assert.rejects(() => resolveTarget(["ops.yml"], {}, { cwd: t.path }), PacketError);
  const seen: string[] = [];
  setWorkspaceResolver((input) => {
    seen.push(`${input.kind}:${input.value}`);
    if (input.kind === "discover") return Promise.resolve(null);
    return Promise.resolve({
      kind: "workspace",
      packetDir: `${t.path}/pk`,
      storeRoot: `${t.path}/state`,
      rest: input.rest,
      label: "ops",
    });
  });
  try {
    assert.equal((await resolveTarget(["ops.yml", "2"], {}, { cwd: t.path })).kind, "workspace");
    assert.deepEqual((await resolveTarget(["ops", "2"], {}, { cwd: t.path })).rest, ["2"]);
    assert.equal((await resolveTarget([], { workspace: "ops" }, { cwd: t.path })).label, "ops");
    assert.deepEqual(seen, [`manifest:${t.path}/ops.yml`, "id:ops", "flag:ops"]);
  } finally {
    setWorkspaceResolver(defaultWorkspaceResolver);
  }
});
