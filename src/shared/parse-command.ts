import { parseArgs } from "node:util";
import { OpenSweError } from "../errors.js";

export interface OptionSpec {
  type: "string" | "boolean";
  multiple?: boolean;
}

/** One command of the `open-swe` CLI: its usage text and what it accepts (checked by node:util parseArgs). */
export interface CommandSpec {
  /** Printed on stdout for `--help`, named in a usage error. */
  usage: string;
  options?: Record<string, OptionSpec>;
  /** How many positional arguments it takes: [min, max] (default none). */
  positionals?: readonly [number, number];
  /** Arguments after `--` are handed on as `rest` (sandbox exec's command); otherwise they are positionals. */
  dashDashRest?: boolean;
}

export class CommandLineError extends OpenSweError<"usage"> {
  constructor(message: string) {
    super("usage", message);
  }
}

export interface ParsedCommand {
  help: boolean;
  positionals: string[];
  /** After `--`, for a spec with `dashDashRest`. */
  rest: string[];
  string(name: string): string | undefined;
  strings(name: string): string[];
  flag(name: string): boolean;
}

/**
 * Parses one command's arguments: `--help`/`-h` anywhere before `--` asks for its usage; an option the
 * command does not take, a value missing or given where none is taken, or a wrong number of
 * positionals is a `CommandLineError` with one line naming what was wrong.
 */
export function parseCommand(name: string, spec: CommandSpec, argv: readonly string[]): ParsedCommand {
  const options = spec.options ?? {};
  const { tokens } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: false, tokens: true });
  const dash = tokens.find((t) => t.kind === "option-terminator")?.index ?? argv.length;
  const optionTokens = tokens.flatMap((t) => (t.kind === "option" && t.index < dash ? [t] : []));
  const help = optionTokens.some((t) => t.name === "help" || t.name === "h");
  const empty: ParsedCommand = { help, positionals: [], rest: [], string: () => undefined, strings: () => [], flag: () => false };
  if (help) return empty;
  const hint = `see open-swe ${name} --help`;
  const unknown = [...new Set(optionTokens.filter((t) => !Object.hasOwn(options, t.name)).map((t) => t.rawName))];
  if (unknown.length > 0) {
    const takes = Object.keys(options).map((o) => `--${o}`);
    throw new CommandLineError(
      `unknown option${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} for \`open-swe ${name}\` (${takes.length ? `it takes ${takes.join(", ")}` : "it takes none"}; ${hint})`,
    );
  }
  for (const t of optionTokens) {
    const type = options[t.name]!.type;
    if (type === "string" && (t.value === undefined || (!t.inlineValue && t.value.startsWith("-")))) throw new CommandLineError(`${t.rawName} needs a value (${hint})`);
    if (type === "boolean" && t.value !== undefined) throw new CommandLineError(`${t.rawName} takes no value (${hint})`);
  }
  const parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  const afterDash = dash < argv.length ? argv.slice(dash + 1) : [];
  const positionals = spec.dashDashRest ? parsed.positionals.slice(0, parsed.positionals.length - afterDash.length) : parsed.positionals;
  const [min, max] = spec.positionals ?? [0, 0];
  if (positionals.length < min) throw new CommandLineError(`\`open-swe ${name}\` is missing an argument (${hint})`);
  if (positionals.length > max)
    throw new CommandLineError(`\`open-swe ${name}\` takes ${max === 0 ? "no arguments" : `at most ${max} argument${max > 1 ? "s" : ""}`}, got "${positionals.slice(max).join(" ")}" (${hint})`);
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  return {
    help: false,
    positionals,
    rest: spec.dashDashRest ? afterDash : [],
    string: (o) => (typeof values[o] === "string" ? values[o] : undefined),
    strings: (o) => (Array.isArray(values[o]) ? values[o] : []),
    flag: (o) => values[o] === true,
  };
}
