import assert from "node:assert/strict";
import { systemdRunArgv, systemdUserProblem, unitName } from "../../src/run/systemd_user.ts";
import { tempDir, writeFiles } from "../support/fs.ts";

Deno.test("systemdRunArgv() starts a transient user service with control-group kill mode and env passed by name only", () => {
  const argv = systemdRunArgv("prompt-runner-ops-1", ["/bin/sh", "-c", "exec runner"], {
    cwd: "/work",
    envNames: ["HOME", "ANTHROPIC_API_KEY", "HOME", "BAD NAME"],
    setEnv: { PROMPT_RUNNER_SERVICE_MODE: "detached" },
  });
  assert.deepEqual(argv, [
    "systemd-run",
    "--user",
    "--unit=prompt-runner-ops-1",
    "--collect",
    "--quiet",
    "--property=KillMode=control-group",
    "--property=Type=exec",
    "--working-directory=/work",
    "--setenv=ANTHROPIC_API_KEY",
    "--setenv=HOME",
    "--setenv=PROMPT_RUNNER_SERVICE_MODE=detached",
    "--",
    "/bin/sh",
    "-c",
    "exec runner",
  ]);
  assert.equal(unitName("ops/night ly", "20261201T120000Z"), "prompt-runner-ops-night-ly-20261201T120000Z");
});

Deno.test("systemdUserProblem() names what is missing: systemd-run, the user session, the manager socket", async () => {
  await using dir = await tempDir();
  const bin = `${dir.path}/bin`;
  await writeFiles(dir.path, { "bin/systemd-run": "#!/bin/sh\nexit 0\n" });
  await Deno.chmod(`${bin}/systemd-run`, 0o755);
  const env = (vars: Record<string, string>) => (k: string) => vars[k];
  assert.equal(await systemdUserProblem(env({ PATH: "/nonexistent" })), "systemd-run is not on PATH");
  assert.equal(await systemdUserProblem(env({ PATH: bin })), "XDG_RUNTIME_DIR is not set (no user session)");
  const runtime = `${dir.path}/run`;
  await Deno.mkdir(`${runtime}/systemd`, { recursive: true });
  assert.equal(
    await systemdUserProblem(env({ PATH: bin, XDG_RUNTIME_DIR: runtime })),
    `no user systemd manager at ${runtime}/systemd/private`,
  );
  // A plain file is not the manager's socket either.
  await Deno.writeTextFile(`${runtime}/systemd/private`, "");
  assert.equal(
    await systemdUserProblem(env({ PATH: bin, XDG_RUNTIME_DIR: runtime })),
    `no user systemd manager at ${runtime}/systemd/private`,
  );
});
