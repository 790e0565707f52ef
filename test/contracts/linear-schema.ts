import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import type { GraphQLSchema } from "graphql";

/**
 * Linear's GraphQL schema as the pinned `@linear/sdk` ships it. The package carries no SDL file, but its
 * type declarations are graphql-codegen's rendering of the whole schema (objects with `__typename`,
 * interfaces joined with `&`, inputs, enums, unions, `<Type><Field>Args` for arguments, `Scalars`), so the
 * SDL is read back from them: the schema the SDK itself was generated from, at the SDK's version.
 */

/**
 * graphql, loaded on the first Linear exchange rather than by every test file's setup (most mock no Linear
 * call). One module instance for the schema and the checks (linear-graphql.ts takes it from here).
 */
let graphqlModule: typeof import("graphql") | undefined;
export const graphql = (): typeof import("graphql") => (graphqlModule ??= createRequire(import.meta.url)("graphql") as typeof import("graphql"));

const DOCUMENTS_REGION = "//#region src/_generated_documents.d.ts";
const BUILT_IN = new Set(["ID", "String", "Boolean", "Int", "Float"]);

/** The d.mts that holds the generated schema types (a hashed chunk name, so found by its region). */
function sdkDeclarations(): string {
  const dist = dirname(fileURLToPath(import.meta.resolve("@linear/sdk")));
  for (const name of readdirSync(dist).filter((f) => f.endsWith(".d.mts"))) {
    const text = readFileSync(join(dist, name), "utf8");
    if (text.includes(DOCUMENTS_REGION) && text.includes("\ntype Query = {")) return text;
  }
  throw new Error(`@linear/sdk: no declaration file with the generated schema under ${dist}`);
}

interface Decl {
  name: string;
  heads: string[];
  body: string[] | undefined;
  union: string[] | undefined;
}

/** `type X = A & B & {` … `};`, `type X = A | B;`, `declare enum X {` … `}` of the schema part of the file. */
function declarations(text: string): { types: Map<string, Decl>; enums: Map<string, string[]>; scalars: string[] } {
  const start = text.indexOf(DOCUMENTS_REGION);
  // Operation and fragment types follow the schema's own types; the first fragment marks the end.
  const end = text.search(/\ntype \w+Fragment = /);
  const lines = text
    .slice(start, end)
    .replace(/\/\*\*[\s\S]*?\*\//g, "")
    .split("\n");
  const types = new Map<string, Decl>();
  const enums = new Map<string, string[]>();
  let scalars: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const enumHead = /^declare enum (\w+) \{$/.exec(line);
    if (enumHead?.[1]) {
      const values: string[] = [];
      for (i++; lines[i] !== "}"; i++) {
        const v = /^\s+\w+ = "([^"]+)",?$/.exec(lines[i] ?? "");
        if (v?.[1]) values.push(v[1]);
      }
      enums.set(enumHead[1], values);
      continue;
    }
    const head = /^type (\w+) = (.*)$/.exec(line);
    if (!head?.[1] || head[2] === undefined) continue;
    const [name, rest] = [head[1], head[2]];
    if (rest.endsWith("{")) {
      const body: string[] = [];
      for (i++; lines[i] !== "};"; i++) if ((lines[i] ?? "").trim()) body.push((lines[i] ?? "").trim());
      if (name === "Scalars") scalars = body.map((f) => f.slice(0, f.indexOf(":")));
      else
        types.set(name, {
          name,
          heads: rest
            .slice(0, -1)
            .split("&")
            .map((s) => s.trim())
            .filter(Boolean),
          body,
          union: undefined,
        });
    } else if (/^[\w ]+(\|[\w ]+)+;$/.test(rest)) {
      types.set(name, {
        name,
        heads: [],
        body: undefined,
        union: rest
          .slice(0, -1)
          .split("|")
          .map((s) => s.trim()),
      });
    }
  }
  return { types, enums, scalars };
}

/** A codegen type expression (`Maybe<Array<Scalars["String"]>>`) as SDL (`[String!]`). */
function sdlType(expr: string, optional: boolean): string {
  const maybe = /^(?:Input)?Maybe<(.*)>$/.exec(expr);
  if (maybe?.[1] !== undefined) return sdlType(maybe[1], true);
  const bang = optional ? "" : "!";
  const list = /^Array<(.*)>$/.exec(expr);
  if (list?.[1] !== undefined) return `[${sdlType(list[1], false)}]${bang}`;
  const scalar = /^Scalars\["(\w+)"\]$/.exec(expr);
  if (scalar?.[1]) return `${scalar[1]}${bang}`;
  if (/^\w+$/.test(expr)) return `${expr}${bang}`;
  throw new Error(`@linear/sdk declarations: unreadable type ${expr}`);
}

function fields(body: string[]): { name: string; type: string }[] {
  return body
    .filter((f) => !f.startsWith("__typename"))
    .map((f) => {
      const m = /^(\w+)(\??): (.*);$/.exec(f);
      if (!m?.[1] || m[3] === undefined) throw new Error(`@linear/sdk declarations: unreadable field ${f}`);
      return { name: m[1], type: sdlType(m[3], m[2] === "?") };
    });
}

/** The SDL of the schema in the SDK's declarations. */
export function linearSdl(text: string): string {
  const { types, enums, scalars } = declarations(text);
  const interfaces = new Set<string>();
  for (const d of types.values()) for (const h of d.heads) interfaces.add(h);
  const isObject = (d: Decl) => d.body?.some((f) => f.startsWith("__typename")) ?? false;
  // `<Type><Field>Args`, the field in codegen's PascalCase (`attachmentLinkURL` → `AttachmentLinkUrlArgs`).
  const argTypes = new Map<string, Decl>();
  for (const d of types.values()) if (d.name.endsWith("Args") && !isObject(d)) argTypes.set(d.name.toLowerCase(), d);
  const out: string[] = scalars.filter((s) => !BUILT_IN.has(s)).map((s) => `scalar ${s}`);
  for (const [name, values] of enums) out.push(`enum ${name} { ${values.join(" ")} }`);
  for (const d of types.values()) {
    if (d.union) {
      out.push(`union ${d.name} = ${d.union.join(" | ")}`);
      continue;
    }
    const object = isObject(d);
    if (!d.body || (!object && d.name.endsWith("Args"))) continue;
    const kind = object ? "type" : interfaces.has(d.name) ? "interface" : "input";
    const lines = fields(d.body).map((f) => {
      const args = kind === "input" ? undefined : argTypes.get(`${d.name}${f.name}Args`.toLowerCase())?.body;
      const argList =
        args && args.length > 0
          ? `(${fields(args)
              .map((a) => `${a.name}: ${a.type}`)
              .join(", ")})`
          : "";
      return `  ${f.name}${argList}: ${f.type}`;
    });
    const implementsList = object && d.heads.length > 0 ? ` implements ${d.heads.join(" & ")}` : "";
    out.push(`${kind} ${d.name}${implementsList} {\n${lines.join("\n")}\n}`);
  }
  return out.join("\n\n");
}

/** Strings Linear serialises dates as (ISO 8601); the SDL's custom scalars would otherwise take anything. */
function checkedScalars(schema: GraphQLSchema): void {
  for (const name of ["DateTime", "TimelessDate"]) {
    const scalar = schema.getType(name);
    if (!(scalar instanceof graphql().GraphQLScalarType)) continue;
    scalar.serialize = (value: unknown) => {
      if (typeof value !== "string" || Number.isNaN(Date.parse(value))) throw new TypeError(`${name} cannot represent ${JSON.stringify(value)}: Linear sends an ISO 8601 string`);
      return value;
    };
  }
}

let schema: GraphQLSchema | undefined;

/** The schema, built once per test file on first use. */
export function linearSchema(): GraphQLSchema {
  if (!schema) {
    // The SDL is not re-validated (≈40 % of the build); `validate` still asserts the schema itself is sound.
    schema = graphql().buildSchema(linearSdl(sdkDeclarations()), { assumeValidSDL: true });
    checkedScalars(schema);
  }
  return schema;
}
