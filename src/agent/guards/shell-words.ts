import { arithmeticNode, nameArguments, nameText, printsNumber, testExpression, type ArithmeticHost } from "./shell-arithmetic.js";
import { withBashTree, type ShellNode } from "./shell-grammar.js";
import { decodeAnsiC, staticOutput } from "./shell-static.js";
import { DYN, SPLIT, type ParsedShell, type SimpleCommand, type Stdin, type Vars } from "./shell-command.js";

/**
 * Turns a bash script (parsed by tree-sitter-bash) into the flat list of simple commands that would
 * run — including those inside subshells, `$( )`, backticks, process substitutions and here-doc
 * expansions — with quotes removed and known variables expanded. Nothing runs. What cannot be known
 * statically is marked with DYN in the word text (and SPLIT when an unquoted expansion may become
 * several words).
 */

const FIELD = "\u0003";
const STATEMENTS = new Set([
  "program",
  "list",
  "compound_statement",
  "subshell",
  "do_group",
  "if_statement",
  "elif_clause",
  "else_clause",
  "while_statement",
  "for_statement",
  "c_style_for_statement",
  "case_statement",
  "case_item",
  "function_definition",
  "negated_command",
  "ERROR",
  "test_command",
  "binary_expression",
  "unary_expression",
  "parenthesized_expression",
  "ternary_expression",
  "postfix_expression",
]);

/** What a walk collects; a subscript walked as more of the script (`walkArithmetic`) adds to its parent's. */
interface Collected {
  commands: SimpleCommand[];
  procSubs: Array<SimpleCommand | null>;
  unresolved: string[];
  assignments: Array<[string, string]>;
  arithmetic: string[];
  integers: Set<string>;
  assoc: Set<string>;
}

const MAX_ARITHMETIC_NESTING = 4;

class Walker implements ArithmeticHost {
  readonly commands: SimpleCommand[];
  readonly procSubs: Array<SimpleCommand | null>;
  readonly unresolved: string[];
  readonly assignments: Array<[string, string]>;
  readonly arithmetic: string[];
  readonly integers: Set<string>;
  readonly assoc: Set<string>;

  constructor(
    private readonly src: string,
    readonly vars: Vars,
    parent?: Collected,
    private readonly nesting = 0,
  ) {
    const c = parent ?? { commands: [], procSubs: [], unresolved: [], assignments: [], arithmetic: [], integers: new Set(), assoc: new Set() };
    this.commands = c.commands;
    this.procSubs = c.procSubs;
    this.unresolved = c.unresolved;
    this.assignments = c.assignments;
    this.arithmetic = c.arithmetic;
    this.integers = c.integers;
    this.assoc = c.assoc;
  }

  walkArithmetic(text: string): boolean {
    if (this.nesting >= MAX_ARITHMETIC_NESTING) return false;
    const script = `(( ${text} ))`;
    return withBashTree(script, (root, hasError) => {
      if (hasError) return false;
      new Walker(script, this.vars, this, this.nesting + 1).stmt(root, null);
      return true;
    });
  }

  /** Walks a statement; returns the command whose output a pipe after it would read. */
  stmt(node: ShellNode, stdin: Stdin | null): SimpleCommand | null {
    switch (node.type) {
      case "command":
        return this.command(node, stdin);
      case "list": {
        // `a && b && c` nests to the left: walk it without recursing once per operand.
        const operands: ShellNode[] = [];
        const pending: ShellNode[] = [node];
        while (pending.length > 0) {
          const n = pending.pop()!;
          if (n.type === "list") pending.push(...n.namedChildren.reverse());
          else operands.push(n);
        }
        let last: SimpleCommand | null = null;
        for (const o of operands) last = this.stmt(o, null) ?? last;
        return last;
      }
      case "pipeline":
        return this.pipeline(node.namedChildren, stdin);
      case "redirected_statement":
        return this.redirected(node, stdin);
      case "variable_assignment":
        this.assign(node, true);
        return null;
      case "variable_assignments":
        for (const c of node.namedChildren) this.assign(c, true);
        return null;
      case "declaration_command":
        return this.declaration(node);
      case "unset_command":
        for (const c of node.namedChildren.slice(1)) this.vars.delete(c.text);
        return null;
      case "comment":
      case "heredoc_body":
      case "heredoc_start":
      case "heredoc_end":
        return null;
      case "for_statement": {
        const variable = node.childForFieldName("variable");
        if (variable) this.vars.delete(variable.text);
        break;
      }
      case "compound_statement":
        if (!node.text.startsWith("((")) break;
        for (const c of node.namedChildren) arithmeticNode(this, c);
        return null;
      case "c_style_for_statement":
        for (const c of node.namedChildren) {
          if (c.type === "do_group" || c.type === "compound_statement") this.stmt(c, null);
          else arithmeticNode(this, c);
        }
        return null;
      case "test_command":
        testExpression(this, node, (n) => void this.stmt(n, null));
        return null;
      default:
        break;
    }
    if (!STATEMENTS.has(node.type)) {
      this.value(node, false);
      return null;
    }
    let last: SimpleCommand | null = null;
    for (const child of node.namedChildren) last = this.stmt(child, null) ?? last;
    return last;
  }

  private pipeline(parts: ShellNode[], stdin: Stdin | null): SimpleCommand | null {
    let from: SimpleCommand | null = null;
    let first = true;
    for (const part of parts) {
      if (part.type === "comment") continue;
      const input: Stdin | null = first ? stdin : from ? { kind: "pipe", from } : { kind: "unknown" };
      from = this.stmt(part, input);
      first = false;
    }
    return from;
  }

  private command(node: ShellNode, stdin: Stdin | null): SimpleCommand {
    const cmd: SimpleCommand = { words: [], stdin };
    const children = node.children;
    for (let i = 0; i < children.length; i++) {
      const c = children[i]!;
      if (c.type === "variable_assignment") {
        // A prefix assignment (`X=1 cmd`) is in the command's environment only; it still runs substitutions.
        const valueNode = c.childForFieldName("value");
        const name = c.childForFieldName("name")?.text ?? "";
        const value = valueNode ? this.value(valueNode, true) : "";
        this.assignments.push([name, value]);
        cmd.words.push(`${name}=${value}`);
        continue;
      }
      if (c.type === "file_redirect" || c.type === "herestring_redirect") {
        this.redirect(cmd, c);
        continue;
      }
      if (!c.isNamed) {
        // `$"…"` (a translated string) comes as an anonymous `$` followed by the string.
        if (c.type === "$" && children[i + 1]?.startIndex === c.endIndex) continue;
        if (c.type === "$") cmd.words.push("$");
        continue;
      }
      if (STATEMENTS.has(c.type) || c.type === "pipeline" || c.type === "command") {
        this.stmt(c, null); // `time ( … )`, `coproc { … }`: a compound command, not a word
        continue;
      }
      const target = c.type === "command_name" ? (c.firstNamedChild ?? c) : c;
      cmd.words.push(...splitFields(this.value(target, false)));
    }
    nameArguments(this, cmd.words);
    this.commands.push(cmd);
    return cmd;
  }

  private redirected(node: ShellNode, stdin: Stdin | null): SimpleCommand | null {
    const body = node.childForFieldName("body");
    const last = body ? this.stmt(body, stdin) : null;
    let out: SimpleCommand | null = last;
    // tree-sitter-bash drops a lone `-` argument right before a here-doc (`python3 - <<EOF`): put it back.
    const firstRedirect = node.namedChildren.find((r) => !body || r.id !== body.id);
    if (body && last && firstRedirect && /(^|\s)-(\s|$)/.test(this.src.slice(body.endIndex, firstRedirect.startIndex))) last.words.push("-");
    for (const r of node.namedChildren) {
      if (body && r.id === body.id) continue;
      if (r.type === "heredoc_redirect") out = this.heredoc(r, last) ?? out;
      else if (r.type === "file_redirect" || r.type === "herestring_redirect") {
        if (last) this.redirect(last, r);
        else this.value(r, false);
      } else out = this.stmt(r, null) ?? out;
    }
    return out;
  }

  private redirect(cmd: SimpleCommand, r: ShellNode): void {
    if (r.type === "herestring_redirect") {
      const word = r.namedChildren.find((c) => c.type !== "file_descriptor");
      cmd.stdin = { kind: "text", text: `${word ? this.value(word, true) : ""}\n` };
      return;
    }
    const op = r.children.find((c) => !c.isNamed)?.type ?? "";
    const fd = r.namedChildren.find((c) => c.type === "file_descriptor")?.text;
    let source: string | undefined;
    for (const d of r.namedChildren) {
      if (d.type === "file_descriptor") continue;
      const target = this.value(d, true);
      source = target;
      if ((op === ">" || op === ">|" || op === ">>" || op === "&>" || op === "&>>") && (fd === undefined || fd === "1")) {
        (cmd.writes ??= []).push(op.endsWith(">>") ? `+${target}` : target);
      }
    }
    if (op === "<" || op === "<>") cmd.stdin = source === undefined ? { kind: "unknown" } : { kind: "unknown", path: source };
  }

  /** A here-doc feeds `cmd`; tree-sitter hangs a following `| next` or `&& next` inside the redirect. */
  private heredoc(r: ShellNode, cmd: SimpleCommand | null): SimpleCommand | null {
    const start = r.children.find((c) => c.type === "heredoc_start");
    const bodyNode = r.children.find((c) => c.type === "heredoc_body");
    const quoted = start ? /['"\\]/.test(start.text) : false;
    const strip = r.children.some((c) => c.type === "<<-");
    let text = bodyNode ? (quoted ? bodyNode.text : this.expandBody(bodyNode)) : "";
    if (strip) text = text.replace(/^\t+/gm, "");
    if (cmd) cmd.stdin = { kind: "text", text };
    let out: SimpleCommand | null = cmd;
    for (const c of r.namedChildren) {
      if (c.type === "heredoc_body" || c.type === "heredoc_start" || c.type === "heredoc_end") continue;
      if (c.type === "pipeline") {
        out = this.pipeline(c.namedChildren, out ? { kind: "pipe", from: out } : { kind: "unknown" });
      } else if (c.type === "file_redirect" || c.type === "herestring_redirect") {
        if (cmd) this.redirect(cmd, c);
      } else out = this.stmt(c, null) ?? out;
    }
    return out;
  }

  private expandBody(node: ShellNode): string {
    let out = "";
    let cursor = node.startIndex;
    for (const c of node.namedChildren) {
      if (c.type === "heredoc_content") continue;
      out += unescapeDouble(this.src.slice(cursor, realStart(c)));
      out += this.value(c, true);
      cursor = c.endIndex;
    }
    return out + unescapeDouble(this.src.slice(cursor, node.endIndex));
  }

  private assign(node: ShellNode, persist: boolean): void {
    const nameNode = node.childForFieldName("name");
    const name = nameNode?.text;
    const valueNode = node.childForFieldName("value");
    const before = this.commands.length;
    const value = valueNode ? this.value(valueNode, true) : "";
    if (name !== undefined) this.assignments.push([name, value]);
    // `a[$(cmd)]=1`: the subscript of an indexed array is arithmetic.
    if (nameNode?.type === "subscript") arithmeticNode(this, nameNode);
    if (!persist || name === undefined) return;
    this.integers.delete(name);
    if (node.children.some((c) => c.type === "+=")) this.vars.set(name, (this.vars.get(name) ?? DYN) + value);
    else this.vars.set(name, value);
    const last = this.commands.slice(before).at(-1);
    if (valueNode?.type === "arithmetic_expansion" || (valueNode?.type === "command_substitution" && last && printsNumber(last))) this.integers.add(name);
  }

  private declaration(node: ShellNode): SimpleCommand {
    const cmd: SimpleCommand = { words: [node.child(0)?.type ?? "declare"], stdin: null };
    const flags = node.namedChildren
      .filter((c) => c.type === "word" && c.text.startsWith("-"))
      .map((c) => c.text)
      .join("");
    for (const c of node.namedChildren) {
      const name = c.type === "variable_assignment" ? c.childForFieldName("name")?.text : c.type === "variable_name" ? c.text : undefined;
      if (name !== undefined && flags.includes("A")) this.assoc.add(name);
      if (c.type === "variable_assignment") {
        this.assign(c, true);
        // `declare -i n=expr`: the value is evaluated as arithmetic.
        if (flags.includes("i") && name !== undefined) {
          const valueNode = c.childForFieldName("value");
          if (valueNode) arithmeticNode(this, valueNode);
          this.vars.delete(name);
          this.integers.add(name);
        }
      } else if (c.type === "variable_name") cmd.words.push(c.text);
      else {
        const word = this.value(c, false);
        cmd.words.push(word);
        if (!word.startsWith("-")) nameText(this, word.replace(/=.*$/s, ""), c.text);
      }
    }
    this.commands.push(cmd);
    return cmd;
  }

  private nested(node: ShellNode): SimpleCommand[] {
    const before = this.commands.length;
    for (const c of node.namedChildren) this.stmt(c, null);
    return this.commands.slice(before);
  }

  /** The text a word stands for after expansion and quote removal (DYN where unknown). */
  value(node: ShellNode, quoted: boolean): string {
    switch (node.type) {
      case "word":
      case "extglob_pattern": {
        const t = node.text;
        if (!quoted && t !== "[" && t !== "[[" && /(?<!\\)[*?]|(?<!\\)\[.*\]/.test(t)) return `${unescapeBare(t)}${DYN}${SPLIT}`;
        if (!quoted && isBrace(t)) return `${DYN}${SPLIT}`;
        return unescapeBare(t);
      }
      case "number":
      case "variable_name":
      case "special_variable_name":
      case "file_descriptor":
      case "regex":
      case "test_operator":
        return node.text;
      case "raw_string":
        return node.text.slice(1, -1);
      case "string":
        return this.doubleQuoted(node);
      case "translated_string":
        return node.firstNamedChild ? this.value(node.firstNamedChild, true) : "";
      case "ansi_c_string": {
        const decoded = decodeAnsiC(node.text.slice(2, -1));
        if (decoded === null) this.unresolved.push("an ANSI-C `$'…'` string with escapes we cannot decode");
        return decoded ?? DYN;
      }
      case "simple_expansion":
      case "expansion":
        return this.expansion(node, quoted);
      case "command_substitution": {
        const inner = this.nested(node);
        // `$(<file)` has no command: it reads a file.
        const text = inner.length === 0 && node.namedChildren.length > 0 ? null : staticOutput(inner);
        if (text === null) {
          this.unresolved.push(`the output of \`${node.text.slice(0, 60)}\``);
          return quoted ? DYN : `${DYN}${SPLIT}`;
        }
        const trimmed = text.replace(/\n+$/, "");
        return quoted ? trimmed : toFields(trimmed);
      }
      case "process_substitution": {
        const inner = this.nested(node);
        return `${DYN}PS${this.procSubs.push(inner.at(-1) ?? null) - 1}${DYN}`;
      }
      case "arithmetic_expansion":
        for (const c of node.namedChildren) arithmeticNode(this, c);
        return DYN;
      case "concatenation": {
        if (!quoted && isBrace(node.text)) {
          for (const c of node.namedChildren) this.value(c, false);
          return `${DYN}${SPLIT}`;
        }
        let out = "";
        const kids = node.children;
        for (let i = 0; i < kids.length; i++) {
          const c = kids[i]!;
          if (!c.isNamed) {
            if (c.type === "$" && kids[i + 1]?.startIndex === c.endIndex) continue;
            out += c.text;
            continue;
          }
          out += this.value(c, quoted);
        }
        return out;
      }
      case "heredoc_body":
        return this.expandBody(node);
      default:
        // Arrays, brace expressions, anything exotic: run what it contains, know nothing of its value.
        for (const c of node.namedChildren) this.stmt(c, null);
        return quoted ? DYN : `${DYN}${SPLIT}`;
    }
  }

  private doubleQuoted(node: ShellNode): string {
    let out = "";
    let cursor = node.startIndex + 1;
    for (const c of node.namedChildren) {
      if (c.type === "string_content") continue;
      out += unescapeDouble(this.src.slice(cursor, realStart(c)));
      out += this.value(c, true);
      cursor = c.endIndex;
    }
    return out + unescapeDouble(this.src.slice(cursor, Math.max(cursor, node.endIndex - 1)));
  }

  private expansion(node: ShellNode, quoted: boolean): string {
    const named = node.namedChildren;
    const simple = named.length === 1 && (named[0]!.type === "variable_name" || named[0]!.type === "special_variable_name");
    const known = simple ? this.vars.get(named[0]!.text) : undefined;
    if (known === undefined || (!quoted && this.vars.has("IFS"))) {
      // With IFS changed we do not model how an unquoted expansion splits.
      for (const c of named) {
        if (c.type === "subscript") this.subscript(c);
        else if (c.type !== "variable_name") this.value(c, true);
      }
      return quoted ? DYN : `${DYN}${SPLIT}`;
    }
    return quoted ? known : toFields(known);
  }

  /** `${a[i]}`: an indexed array's subscript is arithmetic (`@`, `*` and an associative array's are not). */
  private subscript(node: ShellNode): void {
    const name = node.childForFieldName("name")?.text ?? "";
    const index = node.childForFieldName("index");
    if (!index || index.text === "@" || index.text === "*") return;
    if (this.assoc.has(name)) this.value(index, true);
    else arithmeticNode(this, index);
  }
}

/** tree-sitter-bash counts the blank before a `$(` inside a string as part of the substitution. */
function realStart(node: ShellNode): number {
  return node.startIndex + (/^\s*/.exec(node.text)?.[0].length ?? 0);
}

function isBrace(text: string): boolean {
  return /\{[^{}\s'"]*(?:,|\.\.)[^{}\s'"]*\}/.test(text);
}

function unescapeBare(t: string): string {
  return t.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
}

function unescapeDouble(t: string): string {
  return t.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
}

function toFields(value: string): string {
  return value.replace(/[ \t\n]+/g, FIELD);
}

function splitFields(word: string): string[] {
  return word.includes(FIELD) ? word.split(FIELD).filter((w) => w !== "") : [word];
}

/** Every simple command the script would run, with known variables expanded. */
export function parseShell(input: string, vars: Vars = new Map()): ParsedShell {
  // bash joins lines ended by a backslash before it splits words; tree-sitter-bash does not (`g\⏎h` is `gh`).
  const script = input.replace(/\\\n/g, "");
  return withBashTree(script, (root, hasError) => {
    const walker = new Walker(script, vars);
    walker.stmt(root, null);
    return {
      commands: walker.commands,
      procSubs: walker.procSubs,
      parseError: hasError,
      unresolved: walker.unresolved,
      assignments: walker.assignments,
      arithmetic: walker.arithmetic,
    };
  });
}

export function procSubIndex(word: string): number | null {
  const m = /^\u0001PS(\d+)\u0001$/.exec(word);
  return m ? Number(m[1]) : null;
}

export function isAssignment(word: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word);
}

export function isDynamic(word: string): boolean {
  return word.includes(DYN);
}
