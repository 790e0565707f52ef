import type { SimpleCommand, Stdin } from "./shell-command.js";

const DYN = "\u0001";
const SIMPLE_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "?": "?", e: "\x1b", E: "\x1b", a: "\x07", b: "\b", f: "\f", v: "\v" };

/** Decodes the body of a `$'…'` string the way bash does; null when an escape is not one we know. */
export function decodeAnsiC(body: string): string | null {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const rest = body.slice(i + 1);
    const simple = SIMPLE_ESCAPES[rest[0] ?? ""];
    if (simple !== undefined) {
      out += simple;
      i += 1;
      continue;
    }
    const m = /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3})|c(.))/s.exec(rest);
    if (!m) return null;
    if (m[5] !== undefined) out += String.fromCharCode(m[5].toUpperCase().charCodeAt(0) & 0x1f);
    else {
      const code = m[1] ? parseInt(m[1], 16) : m[2] ? parseInt(m[2], 16) : m[3] ? parseInt(m[3], 16) : parseInt(m[4]!, 8);
      if (code > 0x10ffff) return null;
      out += String.fromCodePoint(code);
    }
    i += m[0].length;
  }
  return out;
}

/** `printf` / `echo -e` escapes; null for what we do not model. */
function decodeEcho(text: string): string | null {
  const cut = text.indexOf("\\c");
  return decodeAnsiC((cut === -1 ? text : text.slice(0, cut)).replace(/\\0([0-7]{1,3})/g, "\\$1"));
}

function printf(args: string[]): string | null {
  const [format, ...values] = args;
  if (format === undefined) return null;
  let i = 0;
  let out = "";
  let used = false;
  do {
    used = false;
    const piece = format.replace(/%([-+ #0]*\d*(?:\.\d+)?)([sbdiqc%])/g, (_m, _flags: string, conv: string) => {
      if (conv === "%") return "%";
      used = true;
      const v = values[i++] ?? "";
      return conv === "b" ? (decodeEcho(v) ?? DYN) : v;
    });
    const decoded = decodeEcho(piece);
    if (decoded === null) return null;
    out += decoded;
  } while (used && i < values.length);
  return out;
}

function basename(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash === -1 ? word : word.slice(slash + 1);
}

function stdinText(stdin: Stdin | null, depth: number): string | null {
  if (!stdin || stdin.kind === "unknown") return null;
  if (stdin.kind === "text") return stdin.text;
  return outputOf(stdin.from, depth + 1);
}

/** What a command prints, when that follows from its words and its (static) stdin alone. */
export function outputOf(cmd: SimpleCommand, depth = 0): string | null {
  if (depth > 16) return null;
  const [head, ...args] = cmd.words;
  const name = basename(head ?? "");
  let out: string | null = null;
  if (name === "echo") {
    let i = 0;
    let newline = true;
    let escapes = false;
    for (; i < args.length && /^-[neE]+$/.test(args[i]!); i++) {
      if (args[i]!.includes("n")) newline = false;
      if (args[i]!.includes("e")) escapes = true;
    }
    const text = args.slice(i).join(" ");
    out = escapes ? decodeEcho(text) : text;
    if (out !== null && newline) out += "\n";
  } else if (name === "printf") {
    out = args[0] === "-v" ? null : printf(args[0] === "--" ? args.slice(1) : args);
  } else if (name === "cat" && (args.length === 0 || (args.length === 1 && args[0] === "-"))) {
    out = stdinText(cmd.stdin, depth);
  } else if ((name === "base64" || name === "base32") && args.some((a) => /^-(?:d|D|-decode)$/.test(a) || /^-[a-z]*d/.test(a))) {
    const input = stdinText(cmd.stdin, depth);
    out = input === null ? null : name === "base64" ? Buffer.from(input.replace(/\s+/g, ""), "base64").toString("utf8") : null;
  } else if (name === "rev" && args.length === 0) {
    const input = stdinText(cmd.stdin, depth);
    out =
      input === null
        ? null
        : input
            .split("\n")
            .map((l) => [...l].reverse().join(""))
            .join("\n");
  } else if (name === "xxd" && args.includes("-r") && args.includes("-p")) {
    const input = stdinText(cmd.stdin, depth);
    out = input === null ? null : Buffer.from(input.replace(/[^0-9a-fA-F]/g, ""), "hex").toString("utf8");
  } else if (name === "true" || name === ":") {
    out = "";
  }
  return out === null || out.includes(DYN) ? null : out;
}

/** The output of a `$( … )` whose commands form one pipeline of commands we can evaluate. */
export function staticOutput(commands: SimpleCommand[]): string | null {
  const last = commands.at(-1);
  if (!last) return "";
  let chain = 1;
  for (let s = last.stdin; s?.kind === "pipe"; s = s.from.stdin) chain++;
  return chain === commands.length ? outputOf(last) : null;
}
