import { DYN } from "./shell-command.js";
import { isAssignment } from "./shell-words.js";
import type { StdinText } from "./shell-verdict-tools.js";

/** Skips a wrapper's leading options (and the values of those in `withValue`) up to the wrapped command. */
export function dropOptions(words: string[], withValue: Set<string>): string[] {
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    if (w === "--") return words.slice(i + 1);
    if (w === "-" || !w.startsWith("-")) {
      if (w === "-" || isAssignment(w)) {
        i++;
        continue;
      }
      break;
    }
    i += withValue.has(w) ? 2 : 1;
  }
  return words.slice(i);
}

/** `env -S 'cmd args'` / `--split-string=…`: the string is itself a command line. */
export function envSplitString(rest: string[]): string | null {
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (w === "-S" || w === "--split-string") return rest.slice(i + 1).join(" ");
    if (w.startsWith("--split-string=")) return [w.slice("--split-string=".length), ...rest.slice(i + 1)].join(" ");
    if (w.startsWith("-S") && w.length > 2) return [w.slice(2), ...rest.slice(i + 1)].join(" ");
    if (!w.startsWith("-")) return null;
  }
  return null;
}

const XARGS_VALUE = new Set(["-I", "-n", "-L", "-l", "-P", "-d", "-E", "-e", "-s", "-a", "--arg-file", "--delimiter", "--max-args", "--max-lines", "--max-procs", "--max-chars", "--replace", "--eof"]);

/** The command xargs runs, with the arguments it would read from stdin appended. */
export function xargsCommand(rest: string[], stdinText: StdinText): string[] {
  let i = 0;
  while (i < rest.length && rest[i]!.startsWith("-")) {
    const w = rest[i]!;
    if (w === "--") {
      i++;
      break;
    }
    i += XARGS_VALUE.has(w) ? 2 : 1;
  }
  const cmd = rest.slice(i);
  const extra = stdinText === null ? [DYN] : stdinText.split(/\s+/).filter(Boolean);
  return [...(cmd.length > 0 ? cmd : ["echo"]), ...extra];
}
