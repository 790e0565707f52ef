import { CommandLineError, parseCommand, type ParsedCommand } from "../shared/parse-command.js";
import { BENCH_NAMES, COMMANDS, USAGE, type CommandName } from "./commands.js";

export type Resolved =
  | { kind: "usage"; text: string }
  | { kind: "version" }
  | { kind: "run"; name: CommandName; args: ParsedCommand /** The arguments after the command's words, as given (bench: the benchmark's own). */; argv: string[] };

const HELP = new Set(["help", "--help", "-h"]);
const VERSION = new Set(["--version", "-v"]);
const GROUPS = [...new Set(Object.keys(COMMANDS).flatMap((k) => (k.includes(" ") ? [k.split(" ")[0]!] : [])))];

const groupUsage = (group: string) =>
  `usage:\n${Object.entries(COMMANDS)
    .filter(([k]) => k.startsWith(`${group} `))
    .map(([, c]) => `  ${c.usage.slice("usage: ".length)}`)
    .join("\n")}`;

/**
 * Which command an `open-swe` command line names and its parsed arguments, or the usage to print
 * (`help`, `--help`, a group's bare name), or `version` (`--version`, `-v`). Pure: a `CommandLineError` names what was wrong.
 */
export function resolveCommand(argv: readonly string[]): Resolved {
  const [first = "all", ...tail] = argv;
  if (HELP.has(first)) return { kind: "usage", text: USAGE };
  if (VERSION.has(first) && tail.length === 0) return { kind: "version" };
  if (first.startsWith("-")) {
    const args = parseCommand("all", COMMANDS.all, argv);
    return args.help ? { kind: "usage", text: COMMANDS.all.usage } : { kind: "run", name: "all", args, argv: [...argv] };
  }
  if (GROUPS.includes(first)) {
    const [verb, ...rest] = tail;
    if (verb === undefined || HELP.has(verb)) return { kind: "usage", text: groupUsage(first) };
    const name = `${first} ${verb}`;
    if (!Object.hasOwn(COMMANDS, name)) throw new CommandLineError(`unknown command "open-swe ${name}" (see open-swe ${first} --help)`);
    return resolved(name as CommandName, rest);
  }
  if (!Object.hasOwn(COMMANDS, first)) throw new CommandLineError(`unknown command "${first}" (see open-swe help)`);
  const name = first as CommandName;
  if (name === "settings" && (tail.length === 0 || HELP.has(tail[0]!))) return { kind: "usage", text: COMMANDS.settings.usage };
  if (name === "bench") {
    const [bench, ...passOn] = tail;
    if (bench === undefined || HELP.has(bench)) return { kind: "usage", text: COMMANDS.bench.usage };
    if (!(BENCH_NAMES as readonly string[]).includes(bench)) throw new CommandLineError(`unknown benchmark "${bench}": one of ${BENCH_NAMES.join(", ")}`);
    return { kind: "run", name, args: parseCommand(name, COMMANDS.bench, [bench]), argv: passOn };
  }
  return resolved(name, tail);
}

function resolved(name: CommandName, argv: readonly string[]): Resolved {
  const args = parseCommand(name, COMMANDS[name], argv);
  return args.help ? { kind: "usage", text: COMMANDS[name].usage } : { kind: "run", name, args, argv: [...argv] };
}
