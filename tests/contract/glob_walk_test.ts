/**
 * `globPaths()` (src/contract/clauses/glob_walk.ts) gives the results the `glob` clause got from tinyglobby
 * (`onlyFiles: false, dot: false, expandDirectories: false`, trailing slashes dropped, sorted), on one tree with
 * files, directories, dot entries, nesting, a symlinked directory and a symlink cycle, over the pattern forms the
 * clause meets. tinyglobby stays in the import map for this comparison only.
 */
import assert from "node:assert/strict";
import { glob } from "tinyglobby";
import { globPaths } from "../../src/contract/clauses/glob_walk.ts";
import { tempDir, writeFiles } from "../support/fs.ts";

const PATTERNS = [
  "*",
  "*.md",
  "**",
  "**/*",
  "**/*.ts",
  "src/*",
  "src/**",
  "src/**/*.ts",
  "src/*/*.ts",
  "src/lib/*.ts",
  "{src,docs}/*.md",
  "docs/[ab].md",
  "docs/?.md",
  ".github/*.yml",
  ".github/**",
  "**/.hidden",
  "out/*",
  "out/a.txt",
  "out/missing.txt",
  "out/",
  "out",
  "./out/*",
  "linked/*",
  "loop/**/x.txt",
  "src/**/!(*.test).ts",
  "nowhere/**",
  "flink",
  "dangling",
  "*link*",
];

/** Patterns relative to a subdirectory that reach out of it. */
const FROM_SRC = ["../docs/*.md", "../*.md", "../out/**", "lib/../*.ts"];

Deno.test("globPaths() matches what tinyglobby returned, pattern by pattern", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "README.md": "r",
    "CHANGES.md": "c",
    ".env": "e",
    ".github/ci.yml": "y",
    ".github/deep/x.yml": "y",
    "src/main.ts": "m",
    "src/main.test.ts": "t",
    "src/lib/a.ts": "a",
    "src/lib/.hidden": "h",
    "src/lib/deep/b.ts": "b",
    "src/.cache/c.ts": "c",
    "docs/a.md": "a",
    "docs/b.md": "b",
    "docs/cc.md": "c",
    "out/a.txt": "a",
    "out/empty.txt": "",
    "out/sub/x.txt": "x",
    "loop/x.txt": "x",
  });
  await Deno.mkdir(`${dir.path}/out/emptydir`);
  await Deno.symlink(`${dir.path}/docs`, `${dir.path}/linked`);
  await Deno.symlink(`${dir.path}/loop`, `${dir.path}/loop/again`);
  await Deno.symlink(`${dir.path}/README.md`, `${dir.path}/flink`);
  await Deno.symlink(`${dir.path}/nothing-here`, `${dir.path}/dangling`);
  const cases = [
    ...PATTERNS.map((p) => [p, dir.path] as const),
    ...FROM_SRC.map((p) => [p, `${dir.path}/src`] as const),
  ];
  for (const [pattern, cwd] of cases) {
    const expected = (await glob(pattern, { cwd, onlyFiles: false, dot: false, expandDirectories: false }))
      .map((m) => m.replace(/\/$/, ""))
      .sort();
    assert.deepEqual(await globPaths(pattern, cwd), expected, `${pattern} in ${cwd}`);
  }
});
