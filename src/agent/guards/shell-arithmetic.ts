import type { ShellNode } from "./shell-grammar.js";
import { DYN, type SimpleCommand, type Vars } from "./shell-command.js";

/**
 * Bash evaluates some text as arithmetic — `(( ))`, `$(( ))`, `$[ ]`, `for (( ))`, `let`, `declare -i`,
 * `[[ a -eq b ]]`, an indexed array's subscript — and some as a variable name (`[[ -v ]]`, `test -v`,
 * `read`, `printf -v`). A name's value is evaluated again, and an array subscript inside (`a[$(cmd)]`)
 * runs its command substitution. So every operand is followed to its text: a literal subscript is
 * walked as more of the script (its commands are judged like any other), and text only known when the
 * command runs is recorded in `arithmetic` (the verdict treats it as code it cannot read).
 */
export interface ArithmeticHost {
  readonly vars: Vars;
  /** Names that hold an integer (assigned by arithmetic or from a command that prints a count). */
  readonly integers: Set<string>;
  /** Associative arrays: their subscripts are strings, not arithmetic. */
  readonly assoc: Set<string>;
  /** What bash evaluates that we cannot read, in a few words each. */
  readonly arithmetic: string[];
  readonly commands: SimpleCommand[];
  value(node: ShellNode, quoted: boolean): string;
  /** Walks `(( text ))` as more of this script; false when it does not parse or nests too deep. */
  walkArithmetic(text: string): boolean;
}

const MAX_DEPTH = 6;
/** Bash's own integer variables and the special parameters that are always numbers. */
const INTEGER_NAMES = new Set(["#", "?", "$", "!", "RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID", "EPOCHSECONDS", "OPTIND"]);
const ASSIGNING = new Set(["=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="]);
const ARITH_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

function opaque(host: ArithmeticHost, what: string): void {
  if (host.arithmetic.length < 8) host.arithmetic.push(`\`${what.replace(/[\u0001-\u0003]+/g, "…").slice(0, 60)}\``);
}

/** Follows one node of an arithmetic expression. */
export function arithmeticNode(host: ArithmeticHost, node: ShellNode, depth = 0): void {
  switch (node.type) {
    case "number":
    case "comment":
      return;
    case "variable_name":
      arithmeticName(host, node.text, depth);
      return;
    case "word":
      if (/^[A-Za-z_]\w*$/.test(node.text)) arithmeticName(host, node.text, depth);
      else arithmeticText(host, node.text, node.text, depth);
      return;
    case "simple_expansion":
    case "expansion": {
      const text = host.value(node, true);
      if (integerExpansion(host, node)) return;
      arithmeticText(host, text, node.text, depth);
      return;
    }
    case "command_substitution": {
      const before = host.commands.length;
      const text = host.value(node, true);
      const last = host.commands.slice(before).at(-1);
      if (text.includes(DYN) && last && printsNumber(last)) return;
      arithmeticText(host, text, node.text, depth);
      return;
    }
    case "string":
    case "raw_string":
      arithmeticText(host, host.value(node, true), node.text, depth);
      return;
    case "subscript": {
      const name = node.childForFieldName("name")?.text ?? "";
      const index = node.childForFieldName("index");
      if (index) arithmeticNode(host, index, depth);
      arithmeticName(host, name, depth);
      return;
    }
    case "binary_expression": {
      const op = node.childForFieldName("operator")?.text ?? node.children.find((c) => !c.isNamed)?.text ?? "";
      const left = node.childForFieldName("left");
      const right = node.childForFieldName("right");
      if (right) arithmeticNode(host, right, depth);
      if (left && ASSIGNING.has(op) && /^[A-Za-z_]\w*$/.test(left.text)) {
        if (op !== "=") arithmeticName(host, left.text, depth);
        markInteger(host, left.text);
        return;
      }
      if (left) arithmeticNode(host, left, depth);
      return;
    }
    case "postfix_expression":
    case "unary_expression": {
      for (const c of node.namedChildren) arithmeticNode(host, c, depth);
      const target = node.namedChildren[0];
      if (target && /^[A-Za-z_]\w*$/.test(target.text) && /\+\+|--/.test(node.text)) markInteger(host, target.text);
      return;
    }
    case "variable_assignment": {
      const name = node.childForFieldName("name")?.text;
      const value = node.childForFieldName("value");
      if (value) arithmeticNode(host, value, depth);
      if (name !== undefined) markInteger(host, name);
      return;
    }
    case "ERROR":
      opaque(host, node.text);
      return;
    default:
      for (const c of node.namedChildren) arithmeticNode(host, c, depth);
  }
}

function markInteger(host: ArithmeticHost, name: string): void {
  host.vars.delete(name);
  host.integers.add(name);
}

/** `$#`, `$i` for an integer `i`, `${#x}`, `${#a[@]}`: always a number. */
function integerExpansion(host: ArithmeticHost, node: ShellNode): boolean {
  if (node.text.startsWith("${#")) return true;
  const named = node.namedChildren;
  if (named.length !== 1) return false;
  const name = named[0]!;
  if (name.type !== "variable_name" && name.type !== "special_variable_name") return false;
  return INTEGER_NAMES.has(name.text) || host.integers.has(name.text) || /^\d+$/.test(host.vars.get(name.text) ?? "x");
}

/** A variable named in arithmetic: its value is evaluated in turn. */
export function arithmeticName(host: ArithmeticHost, name: string, depth: number): void {
  if (INTEGER_NAMES.has(name) || host.integers.has(name) || /^\d+$/.test(name)) return;
  const value = host.vars.get(name);
  if (value === undefined) {
    opaque(host, name);
    return;
  }
  arithmeticText(host, value, name, depth + 1);
}

/** Text bash evaluates as an arithmetic expression. */
export function arithmeticText(host: ArithmeticHost, text: string, what: string, depth: number): void {
  if (depth > MAX_DEPTH || text.includes(DYN)) {
    opaque(host, what);
    return;
  }
  const bare = text.replace(/\b\d+#[0-9A-Za-z@_]+|\b0[xX][0-9a-fA-F]+|\b\d+\b/g, " ");
  if (/[[\]$`'"\\]/.test(bare)) {
    if (!host.walkArithmetic(text)) opaque(host, what);
    return;
  }
  for (const name of bare.match(/[A-Za-z_]\w*/g) ?? []) arithmeticName(host, name, depth + 1);
}

/** Text bash reads as a variable name: a subscript in it (`a[$(cmd)]`) is evaluated. */
export function nameText(host: ArithmeticHost, text: string, what: string): void {
  if (text.includes(DYN)) {
    opaque(host, what);
    return;
  }
  const bracket = text.indexOf("[");
  if (bracket === -1) return;
  if (host.assoc.has(text.slice(0, bracket))) return;
  if (!host.walkArithmetic(text)) opaque(host, what);
}

/** `[[ … ]]`: `-v name` and the numeric comparisons evaluate their operands; the rest is walked as words. */
export function testExpression(host: ArithmeticHost, node: ShellNode, walk: (node: ShellNode) => void): void {
  if (node.type === "unary_expression") {
    const op = node.namedChildren.find((c) => c.type === "test_operator")?.text;
    if (op === "-v") {
      for (const c of node.namedChildren) if (c.type !== "test_operator") nameText(host, host.value(c, true), c.text);
      return;
    }
  }
  if (node.type === "binary_expression") {
    const op = node.childForFieldName("operator")?.text ?? "";
    if (ARITH_TESTS.has(op)) {
      for (const side of [node.childForFieldName("left"), node.childForFieldName("right")]) if (side) arithmeticNode(host, side, 0);
      return;
    }
  }
  if (["test_command", "binary_expression", "unary_expression", "parenthesized_expression", "negated_command"].includes(node.type)) {
    for (const c of node.namedChildren) testExpression(host, c, walk);
    return;
  }
  walk(node);
}

/** Options that take a value, for the builtins that take variable names. */
const READ_VALUE = new Set(["-d", "-i", "-n", "-N", "-p", "-t", "-u"]);
const MAPFILE_VALUE = new Set(["-d", "-n", "-O", "-s", "-u", "-C", "-c"]);

/**
 * The builtins that take variable names or arithmetic as arguments: `let`, `read`, `mapfile`,
 * `printf -v`, `test -v` / `[ -v ]`, `getopts`. A name they assign no longer holds what we knew.
 */
export function nameArguments(host: ArithmeticHost, words: string[]): void {
  const [head, ...rest] = words;
  const assigned = (name: string): void => {
    nameText(host, name, name);
    host.vars.delete(name);
    host.integers.delete(name);
  };
  switch (head) {
    case "let":
      for (const w of rest) arithmeticText(host, w, w, 0);
      return;
    case "read":
    case "mapfile":
    case "readarray": {
      const withValue = head === "read" ? READ_VALUE : MAPFILE_VALUE;
      for (let i = 0; i < rest.length; i++) {
        const w = rest[i]!;
        if (w === "-a") assigned(rest[++i] ?? "");
        else if (withValue.has(w)) i++;
        else if (!w.startsWith("-")) assigned(w);
      }
      return;
    }
    case "printf": {
      const at = rest.indexOf("-v");
      if (at !== -1 && rest[at + 1] !== undefined) assigned(rest[at + 1]!);
      return;
    }
    case "getopts":
      if (rest[1] !== undefined) assigned(rest[1]);
      return;
    case "test":
    case "[":
      rest.forEach((w, i) => {
        if (rest[i - 1] === "-v") nameText(host, w, `-v ${w}`);
      });
      return;
    default:
      return;
  }
}

/** A command whose output is a count (`wc`, `--count`, `grep -c`, `… length`, `date +%s`). */
export function printsNumber(cmd: SimpleCommand): boolean {
  const words = cmd.words;
  const name = (words[0] ?? "").replace(/^.*\//, "");
  if (name === "wc" || name === "nproc") return true;
  if (words.includes("--count")) return true;
  if ((name === "grep" || name === "rg") && words.some((w) => /^-[A-Za-z]*c[A-Za-z]*$/.test(w))) return true;
  if (name === "date" && words.some((w) => /^\+%s$/.test(w))) return true;
  return words.some((w) => /(?:^|[|.\s])length\s*$/.test(w));
}
