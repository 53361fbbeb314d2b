/**
 * The CI files (docs/ci.md) agree with the program: the Action and the GitLab template run `run` with exactly its
 * declared permissions and `--report` values the program accepts, the GitLab template hands its JUnit report to
 * `artifacts:reports:junit`, and the release workflow builds both linux targets with checksums. (.ci/run validates the
 * GitHub files against their schemas with @action-validator/cli.) The Action's run step is run by bash as GitHub runs
 * it, on a packet of the simulated provider.
 */
import assert from "node:assert/strict";
import yaml from "js-yaml";
import { childEnv, ROOT } from "./support/cli.ts";
import { tempDir } from "./support/fs.ts";
import { makePacket, promptFile } from "./run/support.ts";
import { denoFlagsFor } from "../src/cli/frame.ts";
import { RUNNER } from "../src/cli/permissions.ts";
import { parseReports } from "../src/run/reports.ts";

type Doc = Record<string, unknown>;

async function load(path: string): Promise<Doc> {
  return yaml.load(await Deno.readTextFile(`${ROOT}/${path}`)) as Doc;
}

/** The `--allow-*` flags and `--report` values of a shell script. */
function runLine(script: string): { perms: string[]; reports: string[] } {
  const perms = [...script.matchAll(/--allow-[a-z]+(=\S+)?/g)].map((m) => m[0]);
  const reports = [...script.matchAll(/--report "?([a-z]+=[^"\s]+)"?/g)].map((m) => m[1]!);
  return { perms, reports };
}

Deno.test("action.yml: a composite action that runs `run` with its permissions and the three reports", async () => {
  const action = await load("action.yml");
  const inputs = action.inputs as Doc;
  assert.deepEqual(Object.keys(inputs).sort(), ["args", "artifact-name", "deno-version", "packet", "reports-dir"]);
  assert.equal((inputs.packet as Doc).required, true);
  const runs = action.runs as { using: string; steps: Doc[] };
  assert.equal(runs.using, "composite");
  const install = runs.steps.find((s) => s.name === "Install Deno from npm")!;
  assert.match(String(install.run), /npm install .*"deno@\$\{DENO_VERSION\}"/);
  const run = runs.steps.find((s) => s.id === "run")!;
  const { perms, reports } = runLine(String(run.run));
  assert.deepEqual(perms, denoFlagsFor(RUNNER), "exactly run's declared permissions");
  assert.deepEqual(parseReports(reports.map((r) => r.replace("${REPORTS}", "out")), "/w").map((r) => r.format), [
    "junit",
    "summary",
    "json",
  ]);
  assert.match(String(run.run), /echo "exit-code=\$\{code\}" >> "\$\{GITHUB_OUTPUT\}"/);
  const upload = runs.steps.find((s) => String(s.uses ?? "").startsWith("actions/upload-artifact@"))!;
  assert.equal(upload.if, "always()");
  const last = runs.steps.at(-1)!;
  assert.equal(last.if, "always()");
  assert.match(String(last.run), /exit "\$\{CODE:-1\}"/);
  assert.equal((last.env as Doc).CODE, "${{ steps.run.outputs.exit-code }}");
});

Deno.test("the GitLab template: run's permissions, the reports, and artifacts:reports:junit on the JUnit file", async () => {
  const doc = await load("examples/ci/gitlab-ci.yml");
  const job = doc.prompt_runner as Doc;
  const script = (job.script as string[]).join("\n");
  const { perms, reports } = runLine(script);
  assert.deepEqual(perms, denoFlagsFor(RUNNER));
  const parsed = parseReports(reports, "/w");
  const junit = parsed.find((r) => r.format === "junit")!;
  const artifacts = job.artifacts as { when: string; reports: { junit: string } };
  assert.equal(artifacts.when, "always", "reports are kept when the run fails");
  assert.equal(`/w/${artifacts.reports.junit}`, junit.path);
});

Deno.test("the release workflow compiles linux x64 and arm64 with checksums", async () => {
  const doc = await load(".github/workflows/release.yml");
  const build = (doc.jobs as Doc).build as { strategy: { matrix: { target: string[] } }; steps: Doc[] };
  assert.deepEqual(build.strategy.matrix.target, ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"]);
  const compile = String(build.steps.find((s) => s.name === "Compile")!.run);
  assert.match(compile, /deno compile --target "\$\{TARGET\}"/);
  const { perms } = runLine(compile);
  assert.deepEqual(perms, denoFlagsFor(RUNNER));
  assert.match(compile, /sha256sum/);
});

Deno.test("the Action's run step, run by bash as GitHub runs it: the reports, and the run's exit code as its output", async () => {
  const action = await load("action.yml");
  const step = (action.runs as { steps: Doc[] }).steps.find((s) => s.id === "run")!;
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}]",
    ),
    "02_b.prompt.md": promptFile("2", "verify:\n  files_exist: [never.txt]\nrecovery: {repair: {enabled: false}}"),
  });
  const output = `${dir.path}/github_output`;
  const denoDir = Deno.execPath().slice(0, Deno.execPath().lastIndexOf("/"));
  const env = childEnv({
    PATH: `${denoDir}:${Deno.env.get("PATH") ?? ""}`,
    GITHUB_ACTION_PATH: ROOT,
    GITHUB_OUTPUT: output,
    PACKET: pkt,
    ARGS: "--keep-going  --through 02",
    REPORTS: `${dir.path}/reports`,
  });
  // GitHub runs a composite step's script as `bash --noprofile --norc -eo pipefail {0}`.
  const script = `${dir.path}/step.sh`;
  await Deno.writeTextFile(script, String(step.run));
  const r = await new Deno.Command("bash", {
    args: ["--noprofile", "--norc", "-eo", "pipefail", script],
    cwd: dir.path,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(r.code, 0, "the step records the exit code; a later step fails with it");
  const outputs = await Deno.readTextFile(output);
  assert.match(outputs, /^exit-code=1$/m, new TextDecoder().decode(r.stderr));
  assert.match(outputs, new RegExp(`^junit=${dir.path}/reports/junit.xml$`, "m"));
  const junit = await Deno.readTextFile(`${dir.path}/reports/junit.xml`);
  assert.match(junit, /<testsuite name="scenario" tests="2" failures="1"/);
  assert.match(await Deno.readTextFile(`${dir.path}/reports/summary.md`), /❌ failed/);
  assert.equal(JSON.parse(await Deno.readTextFile(`${dir.path}/reports/summary.json`)).exit_code, 1);
});
