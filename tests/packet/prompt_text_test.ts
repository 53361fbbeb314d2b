import assert from "node:assert/strict";
import {
  bodySection,
  deriveCommitMessage,
  firstHeading,
  hasPlaceholderMarkers,
  nameFromFilename,
  sectionBullets,
} from "../../src/packet/prompt_text.ts";
import { dependencyCycle } from "../../src/packet/dependencies.ts";

Deno.test("nameFromFilename() strips the prefix and capitalises words", () => {
  assert.equal(nameFromFilename("03_write_the-guide.prompt.md"), "Write The Guide");
  assert.equal(nameFromFilename("12-deploy.md"), "Deploy");
  assert.equal(nameFromFilename("notes.prompt.md"), "Notes");
});

Deno.test("firstHeading() finds the first level-1 heading only", () => {
  assert.equal(firstHeading("intro\n## Sub\n# Main title\n# Second\n"), "Main title");
  assert.equal(firstHeading("## Only sub\n"), null);
});

Deno.test("deriveCommitMessage() uses the Mission paragraph's first line, else feat: <name>", () => {
  assert.equal(deriveCommitMessage("## Mission\n\nfix(api): handle nulls\nmore\n", "N"), "fix(api): handle nulls");
  assert.equal(deriveCommitMessage("## Mission\nfeature flags everywhere\n", "N"), "feature flags everywhere");
  assert.equal(
    deriveCommitMessage("## Mission\n\nAdd the guide\n\nSecond paragraph\n## Next\n", "N"),
    "feat: Add the guide",
  );
  assert.equal(deriveCommitMessage("# Title\n\nNo mission here\n", "Write Guide"), "feat: Write Guide");
});

Deno.test("bodySection() and sectionBullets() read legacy sections", () => {
  const body = "# T\n\n## Validation Commands\n\n- `mix test`\n- mix format --check\nnot a bullet\n\n## Other\n- x\n";
  assert.deepEqual(sectionBullets(bodySection(body, "Validation Commands")!), ["mix test", "mix format --check"]);
  assert.equal(bodySection(body, "Missing"), null);
});

Deno.test("hasPlaceholderMarkers() spots scaffold placeholders", () => {
  assert.equal(hasPlaceholderMarkers("## Mission\n<!-- prompt_runner:placeholder mission -->\n"), true);
  assert.equal(hasPlaceholderMarkers("## Mission\nDone.\n"), false);
});

Deno.test("dependencyCycle() returns one cycle path or null", () => {
  assert.equal(dependencyCycle([{ id: "01", dependsOn: [] }, { id: "02", dependsOn: ["01", "99"] }]), null);
  assert.deepEqual(
    dependencyCycle([{ id: "01", dependsOn: ["03"] }, { id: "02", dependsOn: ["01"] }, {
      id: "03",
      dependsOn: ["02"],
    }]),
    ["01", "03", "02", "01"],
  );
  assert.deepEqual(dependencyCycle([{ id: "05", dependsOn: ["05"] }]), ["05", "05"]);
});
