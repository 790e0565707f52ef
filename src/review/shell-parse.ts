/**
 * A small, tolerant POSIX-shell reader for the verdict guard. It does not run anything: it turns a
 * command line into the flat list of simple commands that would execute (including those inside
 * subshells, `$( )`, backticks and process substitutions), after quote removal. Whatever cannot be
 * known statically (unset variables, command output) is marked with DYN inside the word text.
 */

export const DYN = "\u0001";

export type Stdin =
  | { kind: "text"; text: string }
  | { kind: "unknown" }
  | { kind: "pipe"; from: SimpleCommand };

export interface SimpleCommand {
  words: string[];
  stdin: Stdin | null;
}

export type Vars = Map<string, string>;

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)$/s;

interface Heredoc {
  cmd: SimpleCommand;
  delimiter: string;
  stripTabs: boolean;
}

type Redirect = "in" | "out" | "herestring" | "heredoc" | "heredoc-strip";

class Reader {
  i = 0;
  readonly commands: SimpleCommand[] = [];
  /** `<( … )` / `>( … )`: the command whose output the substitution's word stands for. */
  readonly procSubs: Array<SimpleCommand | null> = [];
  private readonly pendingHeredocs: Heredoc[] = [];

  constructor(
    private readonly s: string,
    readonly vars: Vars,
  ) {}

  /** Parses commands until `end` (a closing `)` or backtick) or the end of input. */
  parseList(end: ")" | "`" | null): void {
    let cmd: SimpleCommand = { words: [], stdin: null };
    let word = "";
    let inWord = false;
    let redirect: Redirect | null = null;
    let pipeFrom: SimpleCommand | null = null;

    const endWord = (): void => {
      if (!inWord) return;
      if (redirect) {
        this.applyRedirect(cmd, redirect, word);
        redirect = null;
      } else cmd.words.push(...splitFields(word));
      word = "";
      inWord = false;
    };
    const endCommand = (pipe: boolean): void => {
      endWord();
      redirect = null;
      if (pipeFrom && !cmd.stdin) cmd.stdin = { kind: "pipe", from: pipeFrom };
      if (cmd.words.length > 0 || cmd.stdin) {
        this.commands.push(cmd);
        this.recordAssignments(cmd);
      }
      pipeFrom = pipe ? cmd : null;
      cmd = { words: [], stdin: null };
    };

    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i]!;
      const next = s[this.i + 1];
      if (end && c === end) {
        this.i++;
        endCommand(false);
        return;
      }
      if (c === "\\") {
        if (next === "\n") {
          this.i += 2;
          continue;
        }
        if (next !== undefined) word += next;
        inWord = true;
        this.i += 2;
        continue;
      }
      if (c === " " || c === "\t") {
        endWord();
        this.i++;
        continue;
      }
      if (c === "\n") {
        endCommand(false);
        this.i++;
        this.readHeredocBodies();
        continue;
      }
      if (c === "#" && !inWord) {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
        continue;
      }
      if (c === ";" || c === "&" || c === "|") {
        if (c === "&" && next === ">") {
          endWord();
          redirect = "out";
          this.i += s[this.i + 2] === ">" ? 3 : 2;
          continue;
        }
        const pipe = c === "|" && next !== "|";
        endCommand(pipe);
        this.i += next === c || (c === "|" && next === "&") ? 2 : 1;
        continue;
      }
      if (c === "(" || c === ")") {
        endCommand(false);
        this.i++;
        if (c === "(") this.parseList(")");
        continue;
      }
      if (c === "<" || c === ">") {
        if (next === "(") {
          this.i += 2;
          const before = this.commands.length;
          this.parseList(")");
          const produced = this.commands.length > before ? this.commands[this.commands.length - 1]! : null;
          word += procSubMarker(this.procSubs.push(produced) - 1);
          inWord = true;
          continue;
        }
        if (inWord && /^\d+$/.test(word)) {
          word = "";
          inWord = false;
        }
        endWord();
        if (c === "<" && s.startsWith("<<<", this.i)) {
          redirect = "herestring";
          this.i += 3;
        } else if (c === "<" && s.startsWith("<<-", this.i)) {
          redirect = "heredoc-strip";
          this.i += 3;
        } else if (c === "<" && next === "<") {
          redirect = "heredoc";
          this.i += 2;
        } else {
          redirect = c === "<" && next !== "&" ? "in" : "out";
          this.i += next === ">" || next === "&" || next === "|" ? 2 : 1;
          if (next === "&") {
            while (this.i < s.length && /[0-9-]/.test(s[this.i]!)) this.i++;
            redirect = null;
          }
        }
        while (s[this.i] === " " || s[this.i] === "\t") this.i++;
        continue;
      }
      if (c === "'") {
        const close = s.indexOf("'", this.i + 1);
        const stop = close === -1 ? s.length : close;
        word += s.slice(this.i + 1, stop);
        inWord = true;
        this.i = stop + 1;
        continue;
      }
      if (c === '"') {
        this.i++;
        word += this.readDoubleQuoted();
        inWord = true;
        continue;
      }
      if (c === "`") {
        this.i++;
        this.parseList("`");
        word += DYN;
        inWord = true;
        continue;
      }
      if (c === "$") {
        word += this.readDollar(false);
        inWord = true;
        continue;
      }
      word += c;
      inWord = true;
      this.i++;
    }
    endCommand(false);
  }

  private readDoubleQuoted(): string {
    const s = this.s;
    let out = "";
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c === "\\") {
        const n = s[this.i + 1];
        if (n === "\n") {
          this.i += 2;
          continue;
        }
        if (n !== undefined && '$`"\\'.includes(n)) {
          out += n;
          this.i += 2;
          continue;
        }
        out += c;
        this.i++;
        continue;
      }
      if (c === "`") {
        this.i++;
        this.parseList("`");
        out += DYN;
        continue;
      }
      if (c === "$") {
        out += this.readDollar(true);
        continue;
      }
      out += c;
      this.i++;
    }
    return out;
  }

  /** At a `$`: expands what can be known, runs substitutions through the parser, marks the rest DYN. */
  private readDollar(quoted: boolean): string {
    const s = this.s;
    const n = s[this.i + 1];
    if (n === "(" && s[this.i + 2] === "(") {
      this.i = skipBalanced(s, this.i + 3, "(", ")", 2);
      return DYN;
    }
    if (n === "(") {
      this.i += 2;
      this.parseList(")");
      return DYN;
    }
    if (n === "{") {
      const close = s.indexOf("}", this.i + 2);
      const stop = close === -1 ? s.length : close;
      const inner = s.slice(this.i + 2, stop);
      this.i = stop + 1;
      const known = /^[A-Za-z_][A-Za-z0-9_]*$/.test(inner) ? this.vars.get(inner) : undefined;
      return known === undefined ? DYN : quoted ? known : toFields(known);
    }
    if (n === "'" && !quoted) {
      this.i += 2;
      return this.readAnsiC();
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*|^[0-9@*#?$!-]/.exec(s.slice(this.i + 1));
    if (!m) {
      this.i++;
      return "$";
    }
    this.i += 1 + m[0].length;
    const value = this.vars.get(m[0]);
    return value === undefined ? DYN : quoted ? value : toFields(value);
  }

  private readAnsiC(): string {
    const s = this.s;
    let out = "";
    const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', e: "\x1b", a: "\x07" };
    while (this.i < s.length && s[this.i] !== "'") {
      const c = s[this.i]!;
      if (c === "\\") {
        const n = s[this.i + 1] ?? "";
        const mapped = simple[n];
        if (mapped !== undefined) {
          out += mapped;
          this.i += 2;
          continue;
        }
        const hex = /^x([0-9a-fA-F]{1,2})/.exec(s.slice(this.i + 1));
        if (hex) {
          out += String.fromCharCode(parseInt(hex[1]!, 16));
          this.i += 1 + hex[0].length;
          continue;
        }
        const oct = /^[0-7]{1,3}/.exec(s.slice(this.i + 1));
        if (oct) {
          out += String.fromCharCode(parseInt(oct[0], 8));
          this.i += 1 + oct[0].length;
          continue;
        }
      }
      out += c;
      this.i++;
    }
    this.i++;
    return out;
  }

  private applyRedirect(cmd: SimpleCommand, kind: Redirect, target: string): void {
    if (kind === "in") cmd.stdin = { kind: "unknown" };
    else if (kind === "herestring") cmd.stdin = { kind: "text", text: `${target}\n` };
    else if (kind === "heredoc" || kind === "heredoc-strip") {
      cmd.stdin = { kind: "text", text: "" };
      this.pendingHeredocs.push({ cmd, delimiter: target, stripTabs: kind === "heredoc-strip" });
    }
  }

  /** Heredoc bodies follow the line that declared them; they are data, never commands. */
  private readHeredocBodies(): void {
    const s = this.s;
    for (const doc of this.pendingHeredocs.splice(0)) {
      const lines: string[] = [];
      while (this.i < s.length) {
        const nl = s.indexOf("\n", this.i);
        const stop = nl === -1 ? s.length : nl;
        let line = s.slice(this.i, stop);
        this.i = stop + 1;
        if (doc.stripTabs) line = line.replace(/^\t+/, "");
        if (line === doc.delimiter) break;
        lines.push(line);
      }
      doc.cmd.stdin = { kind: "text", text: lines.map((l) => `${l}\n`).join("") };
    }
  }

  /** `X=1` alone, or `export X=1`, sets a variable later words can expand. */
  private recordAssignments(cmd: SimpleCommand): void {
    const words = cmd.words[0] === "export" || cmd.words[0] === "readonly" || cmd.words[0] === "local" ? cmd.words.slice(1) : cmd.words;
    if (words.length === 0 || !words.every((w) => ASSIGNMENT.test(w))) return;
    for (const w of words) {
      const m = ASSIGNMENT.exec(w)!;
      this.vars.set(m[1]!, m[2]!);
    }
  }
}

/** Unquoted expansions are split into words; FIELD marks where, until the word ends. */
const FIELD = "\u0003";

function toFields(value: string): string {
  return value.replace(/[ \t\n]+/g, FIELD);
}

function splitFields(word: string): string[] {
  return word.includes(FIELD) ? word.split(FIELD).filter((w) => w !== "") : [word];
}

function skipBalanced(s: string, from: number, open: string, close: string, depth: number): number {
  let i = from;
  let d = depth;
  while (i < s.length && d > 0) {
    if (s[i] === open) d++;
    else if (s[i] === close) d--;
    i++;
  }
  return i;
}

export interface ParsedShell {
  commands: SimpleCommand[];
  procSubs: Array<SimpleCommand | null>;
}

function procSubMarker(index: number): string {
  return `${DYN}PS${index}${DYN}`;
}

/** The process substitution a word stands for, when the word is exactly one. */
export function procSubIndex(word: string): number | null {
  const m = /^\u0001PS(\d+)\u0001$/.exec(word);
  return m ? Number(m[1]) : null;
}

/** Every simple command the script would run, in completion order, with known variables expanded. */
export function parseShell(script: string, vars: Vars = new Map()): ParsedShell {
  const reader = new Reader(script, vars);
  reader.parseList(null);
  return { commands: reader.commands, procSubs: reader.procSubs };
}

export function isAssignment(word: string): boolean {
  return ASSIGNMENT.test(word);
}

export function isDynamic(word: string): boolean {
  return word.includes(DYN);
}
