/** A parsed shell script as the verdict guard sees it: simple commands with their words and stdin. */

export const DYN = "\u0001";
export const SPLIT = "\u0002";

export type Stdin = { kind: "text"; text: string } | { kind: "unknown"; path?: string } | { kind: "pipe"; from: SimpleCommand };

export interface SimpleCommand {
  words: string[];
  stdin: Stdin | null;
  /** Files its stdout is redirected to (`> f`, `>> f`), with `>>` marked by a leading `+`. */
  writes?: string[];
}

export type Vars = Map<string, string>;

export interface ParsedShell {
  commands: SimpleCommand[];
  procSubs: Array<SimpleCommand | null>;
  /** tree-sitter could not parse part of it (bash may still run what comes before the error). */
  parseError: boolean;
  /** Something here produced text we could not read: a command substitution, an encoded string. */
  unresolved: string[];
  /** Every variable assignment (`X=1 cmd`, `X=1`, `export X=1`), in order. */
  assignments: Array<[string, string]>;
  /** Text bash evaluates as arithmetic or as a variable name that we cannot read (an array subscript in it runs commands). */
  arithmetic: string[];
}
