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

/** env's options that take a value as the next word. */
const ENV_VALUE = new Set(["-u", "--unset", "-C", "--chdir", "-a", "--argv0", "--default-signal", "--ignore-signal", "--block-signal"]);

/** `env -S 'cmd args'` / `--split-string=…` (after any other options, `-u X` included): the string is itself a command line. */
export function envSplitString(rest: string[]): string | null {
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (w === "-S" || w === "--split-string") return rest.slice(i + 1).join(" ");
    if (w.startsWith("--split-string=")) return [w.slice("--split-string=".length), ...rest.slice(i + 1)].join(" ");
    if (/^-[^-]*S/.test(w)) {
      // Bundled short options: `-iS'cmd'`, `-S'cmd'`; what follows the S is the string.
      const at = w.indexOf("S");
      const tail = w.slice(at + 1);
      return [tail, ...rest.slice(i + 1)].join(" ").trim();
    }
    if (ENV_VALUE.has(w)) {
      i++;
      continue;
    }
    if (!w.startsWith("-") || w === "-") return null;
  }
  return null;
}

const XARGS_VALUE = new Set(["-n", "-L", "-l", "-P", "-s", "-E", "-e", "--max-args", "--max-lines", "--max-procs", "--max-chars", "--eof", "--process-slot-var"]);
/** At most this many commands are evaluated for one xargs (one per input item with -I). */
const XARGS_ITEMS = 20;

/**
 * The commands xargs runs: its command with the items it reads from stdin appended — split on NUL with
 * `-0`, on the `-d` delimiter, on lines with `-I`, else on blanks — or, with `-I`/`-i`/`--replace`, one
 * command per item with the replace string substituted. Items from a file (`-a`) or unreadable stdin
 * are `DYN`.
 */
export function xargsCommands(rest: string[], stdinText: StdinText): string[][] {
  let i = 0;
  let delim: "nul" | "blank" | string = "blank";
  let replace: string | null = null;
  let fromFile = false;
  while (i < rest.length && rest[i]!.startsWith("-") && rest[i] !== "-") {
    const w = rest[i]!;
    if (w === "--") {
      i++;
      break;
    }
    if (w === "-0" || w === "--null") delim = "nul";
    else if (w === "-d" || w === "--delimiter") delim = unescape(rest[++i] ?? "");
    else if (w.startsWith("--delimiter=")) delim = unescape(w.slice(12));
    else if (w.startsWith("-d")) delim = unescape(w.slice(2));
    else if (w === "-I") replace = rest[++i] ?? "{}";
    else if (w.startsWith("-I")) replace = w.slice(2);
    else if (w === "-i" || w === "--replace") replace = "{}";
    else if (w.startsWith("--replace=")) replace = w.slice(10);
    else if (w.startsWith("-i")) replace = w.slice(2);
    else if (w === "-a" || w === "--arg-file") {
      fromFile = true;
      i++;
    } else if (w.startsWith("--arg-file=") || (w.startsWith("-a") && w.length > 2)) fromFile = true;
    else if (XARGS_VALUE.has(w)) i++;
    i++;
  }
  const cmd = rest.slice(i).length > 0 ? rest.slice(i) : ["echo"];
  const items = fromFile || stdinText === null ? null : splitItems(stdinText, delim, replace !== null);
  if (items === null) return [replace === null ? [...cmd, DYN] : cmd.map((a) => a.split(replace!).join(DYN))];
  if (replace === null) return [[...cmd, ...items]];
  return items.slice(0, XARGS_ITEMS).map((item) => cmd.map((a) => a.split(replace!).join(item)));
}

function unescape(d: string): string {
  const map: Record<string, string> = { "\\n": "\n", "\\t": "\t", "\\0": "\0", "\\\\": "\\" };
  return map[d] ?? d;
}

function splitItems(text: string, delim: string, lines: boolean): string[] {
  if (delim === "nul") return text.split(/\0|\\0/).filter((s) => s !== "" && s !== "\n");
  if (delim !== "blank") return text.split(delim).filter(Boolean);
  if (lines)
    return text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
  return text.split(/\s+/).filter(Boolean);
}
