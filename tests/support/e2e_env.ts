/**
 * Scratch homes, config files and environment for driving the real `claude` and `codex` CLIs against the loopback
 * fake servers (docs/reference/providers.md §7.1–§7.4). Nothing global is touched: every call gets its own directories.
 */

/** Root of the repository. */
const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

/** Directory holding the installed CLIs (`PROMPT_RUNNER_E2E_TOOLS`, default `tests/.tools`). */
export function e2eToolsDir(): string {
  const fromEnv = Deno.env.get("PROMPT_RUNNER_E2E_TOOLS");
  if (fromEnv) return fromEnv.startsWith("/") ? fromEnv : `${ROOT}/${fromEnv}`;
  return `${ROOT}/tests/.tools`;
}

/** Path of an installed CLI binary (`claude` or `codex`), or null when absent. */
export function e2eBinary(name: "claude" | "codex"): string | null {
  const path = `${e2eToolsDir()}/node_modules/.bin/${name}`;
  try {
    return Deno.statSync(path).isFile ? path : null;
  } catch {
    return null;
  }
}

/** Scratch directories and environment for one CLI. */
export interface CliEnv {
  /** Variables to add to the CLI's (or the runner's) environment. */
  env: Record<string, string>;
  /** The scratch HOME. */
  home: string;
  /** `CLAUDE_CONFIG_DIR` or `CODEX_HOME`. */
  configDir: string;
}

/** Environment variable `scripts/e2e.ts` sets to tag every process the suite starts (stray detection). */
export const E2E_TAG_VAR = "PROMPT_RUNNER_E2E_RUN_TAG";

/** Base variables that keep HOME-derived lookups inside the scratch dir (and carry the suite's tag). */
function baseEnv(home: string): Record<string, string> {
  const tag = Deno.env.get(E2E_TAG_VAR);
  return {
    ...(tag ? { [E2E_TAG_VAR]: tag } : {}),
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    XDG_CACHE_HOME: `${home}/.cache`,
    XDG_DATA_HOME: `${home}/.local/share`,
    XDG_STATE_HOME: `${home}/.local/state`,
    PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
}

/** Options for {@link claudeEnv}. */
export interface ClaudeEnvOptions {
  /** Set `IS_SANDBOX=1` (needed for bypassPermissions as root). */
  sandbox?: boolean;
  /** `API_TIMEOUT_MS` (default 30000). */
  apiTimeoutMs?: number;
}

/** Build the scratch HOME and `CLAUDE_CONFIG_DIR` under `root` and the environment of docs/reference/providers.md §7.3. */
export async function claudeEnv(root: string, port: number, opts: ClaudeEnvOptions = {}): Promise<CliEnv> {
  const home = `${root}/claude-home`;
  const configDir = `${home}/.claude`;
  await Deno.mkdir(configDir, { recursive: true });
  const env: Record<string, string> = {
    ...baseEnv(home),
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: "sk-ant-fake-e2e-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_MAX_RETRIES: "1",
    API_TIMEOUT_MS: String(opts.apiTimeoutMs ?? 30_000),
  };
  if (opts.sandbox) env.IS_SANDBOX = "1";
  return { env, home, configDir };
}

/** Options for {@link codexEnv}. */
export interface CodexEnvOptions {
  /** Model slug (default `gpt-5.5`; an unknown slug loses the apply_patch tool). */
  model?: string;
  /** `stream_idle_timeout_ms` (default 60000). */
  streamIdleTimeoutMs?: number;
}

/** The `config.toml` of docs/reference/providers.md §7.4 for a fake server on `port`. */
export function codexConfigToml(port: number, opts: CodexEnvOptions = {}): string {
  return [
    `model = ${JSON.stringify(opts.model ?? "gpt-5.5")}`,
    `model_provider = "fake"`,
    `approval_policy = "never"`,
    `check_for_update_on_startup = false`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[feedback]`,
    `enabled = false`,
    ``,
    `[model_providers.fake]`,
    `name = "fake e2e"`,
    `base_url = "http://127.0.0.1:${port}/v1"`,
    `wire_api = "responses"`,
    `env_key = "FAKE_OPENAI_API_KEY"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    `stream_idle_timeout_ms = ${opts.streamIdleTimeoutMs ?? 60_000}`,
    ``,
  ].join("\n");
}

/** Build the scratch HOME and `CODEX_HOME` (with config.toml) under `root` and the environment of docs/reference/providers.md §7.4. */
export async function codexEnv(root: string, port: number, opts: CodexEnvOptions = {}): Promise<CliEnv> {
  const home = `${root}/codex-home`;
  const configDir = `${home}/.codex`;
  await Deno.mkdir(configDir, { recursive: true });
  await Deno.writeTextFile(`${configDir}/config.toml`, codexConfigToml(port, opts));
  const env: Record<string, string> = {
    ...baseEnv(home),
    CODEX_HOME: configDir,
    FAKE_OPENAI_API_KEY: "sk-fake-e2e-key",
  };
  return { env, home, configDir };
}

/** The claude session file for a session started in `cwd` (docs/reference/providers.md §2 Resume). */
export function claudeSessionFile(configDir: string, cwd: string, sessionId: string): string {
  return `${configDir}/projects/${cwd.replaceAll("/", "-").replaceAll(".", "-")}/${sessionId}.jsonl`;
}

/** Every file below `dir` (recursively) whose name contains `fragment`; a missing directory gives none. */
export async function filesNamedLike(dir: string, fragment: string): Promise<string[]> {
  const found: string[] = [];
  async function walk(d: string): Promise<void> {
    let entries: Deno.DirEntry[] = [];
    try {
      entries = await Array.fromAsync(Deno.readDir(d));
    } catch {
      return;
    }
    for (const e of entries) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (e.name.includes(fragment)) found.push(p);
    }
  }
  await walk(dir);
  return found;
}

/** Every codex rollout file under `CODEX_HOME/sessions` whose name contains `threadId`. */
export function codexRolloutFiles(configDir: string, threadId: string): Promise<string[]> {
  return filesNamedLike(`${configDir}/sessions`, threadId);
}

/**
 * Remove a scratch root. A provider that has just exited can still have a short-lived helper flushing session
 * files into it (claude writes `.claude.json` backups and session lines on the way out), so retry until it stays gone.
 */
export async function removeScratch(root: string): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await Deno.remove(root, { recursive: true }).catch(() => {});
    await new Promise((r) => setTimeout(r, 150));
    try {
      await Deno.lstat(root);
    } catch {
      return;
    }
  }
}
