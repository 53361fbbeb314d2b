/** Placeholder for commands under construction; every use is replaced before its issue is closed. */
import type { CommandSpec } from "./frame.ts";
import { PromptRunnerError } from "../errors.ts";

/** A command that reports it is not built yet (exit 1). */
export function notBuilt(name: string): CommandSpec {
  return {
    usage: "",
    description: `${name} is not built yet.`,
    flags: {},
    run() {
      return Promise.reject(new PromptRunnerError("not_built", `${name} is not built yet`, 1));
    },
  };
}
