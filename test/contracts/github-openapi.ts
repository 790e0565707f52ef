import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";

/**
 * GitHub's own OpenAPI description (`@octokit/openapi`: api.github.com, and the GHES one for a GitHub
 * Enterprise Server origin) as a contract for our mocks.
 * Requests are checked strictly (route, path and query parameters, body: required fields, types, no
 * undocumented fields); responses by status (it must be documented) and by the TYPES of the fields a
 * mock sends — `required`/`additionalProperties` are dropped from response schemas because mocks carry
 * only the fields the code reads (test/contracts/README.md). Each description is loaded and compiled
 * lazily, once per test file (module scope), only for the operations a test uses.
 */

const require = createRequire(import.meta.url);
// ajv is loaded with the first GitHub exchange checked, not by every test file's setup.
const loadAjv = () => ({
  Ajv: (require("ajv") as typeof import("ajv")).Ajv,
  addFormats: require("ajv-formats") as (ajv: Ajv) => Ajv,
});

type Json = Record<string, unknown>;
interface Param {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}
export interface Operation {
  operationId: string;
  method: string;
  template: string;
  op: Json;
  pathItem: Json;
  description: Description;
}

export interface ContractVerdict {
  /** "validated": an operation was found and checked; "no-contract": nothing to check against (GraphQL). */
  kind: "validated" | "no-contract";
  operationId?: string;
  violations: string[];
}

/** One description file, its route table and the validators compiled from it (each built on first use). */
interface Description {
  file: string;
  /** How violations name it: "GitHub's REST description", "GHES 3.19's REST description". */
  label: string;
  doc?: Json;
  routes?: { re: RegExp; greedy: RegExp; literal: number; template: string }[];
  compiled: Map<string, ValidateFunction>;
}

let strictAjv: Ajv | undefined;
let relaxedAjv: Ajv | undefined;

/** Which file holds the description of api.github.com. */
export const GITHUB_DESCRIPTION = "@octokit/openapi/generated/api.github.com.json";
/**
 * The GHES release whose description holds mocks of a GitHub Enterprise Server origin: the newest the
 * pinned `@octokit/openapi` ships (`generated/ghes-3.x.json`; bump it with the package).
 */
export const GHES_VERSION = "3.19";
export const GHES_DESCRIPTION = `@octokit/openapi/generated/ghes-${GHES_VERSION}.json`;

const dotcom: Description = { file: GITHUB_DESCRIPTION, label: "GitHub's REST description", compiled: new Map() };
const ghes: Description = { file: GHES_DESCRIPTION, label: `GHES ${GHES_VERSION}'s REST description`, compiled: new Map() };

function load(d: Description): Json {
  d.doc ??= JSON.parse(readFileSync(require.resolve(d.file), "utf8")) as Json;
  return d.doc;
}
const spec = (): Json => load(dotcom);

/**
 * A copy of a schema ready for Ajv: OpenAPI 3.0's `nullable` without a `type` becomes `anyOf [.., null]`;
 * with `relax`, `required` and `additionalProperties` are dropped and `oneOf` is read as `anyOf`.
 */
export function prepareSchema(node: unknown, relax: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => prepareSchema(n, relax));
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (relax && k === "required" && Array.isArray(v)) continue;
    if (relax && k === "additionalProperties") continue;
    const key = relax && k === "oneOf" ? "anyOf" : k;
    out[key] = k === "properties" && v && typeof v === "object" ? Object.fromEntries(Object.entries(v as Json).map(([p, ps]) => [p, prepareSchema(ps, relax)])) : prepareSchema(v, relax);
  }
  // OpenAPI 3.0: `nullable` admits null even past an `enum` (`conclusion: null` while a check runs).
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  if (out.nullable === true && out.type === undefined) {
    delete out.nullable;
    return { anyOf: [out, { type: "null" }] };
  }
  return out;
}

function at(parts: string[], from: Json = spec()): unknown {
  let n: unknown = from;
  for (const p of parts) n = (n as Json)[p];
  return n;
}

/** The schema at `parts` with just the components it reaches, so compiling never walks the whole description. */
export function standalone(parts: string[], from: Json = spec()): Json {
  const schemas: Json = {};
  const seen = new Set<string>();
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) {
      n.forEach(walk);
      return;
    }
    if (!n || typeof n !== "object") return;
    for (const [k, v] of Object.entries(n as Json)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith("#/components/schemas/")) {
        const name = v.slice("#/components/schemas/".length);
        if (!seen.has(name)) {
          seen.add(name);
          schemas[name] = at(["components", "schemas", name], from);
          walk(schemas[name]);
        }
      } else walk(v);
    }
  };
  const root = at(parts, from) as Json;
  walk(root);
  return { ...root, components: { schemas } };
}

function ajvFor(mode: "strict" | "relaxed"): Ajv {
  if (mode === "strict") {
    if (!strictAjv) {
      const { Ajv, addFormats } = loadAjv();
      strictAjv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
      addFormats(strictAjv);
      // GitHub's own formats (request bodies): `repo.nwo` is "owner/name"; the others are not checked.
      strictAjv.addFormat("repo.nwo", /^[\w.-]+\/[\w.-]+$/);
      for (const f of ["timestamp", "ssh-key", "ssh-key fingerprint", "ip/cidr"]) strictAjv.addFormat(f, true);
    }
    return strictAjv;
  }
  relaxedAjv ??= new (loadAjv().Ajv)({ strict: false, allErrors: true, validateSchema: false, validateFormats: false });
  return relaxedAjv;
}

/**
 * `closed`: a request body's top-level fields must be documented even where GitHub's description leaves
 * `additionalProperties` open — GitHub ignores an unknown field, so a misspelt one is a silent bug.
 */
function validator(d: Description, mode: "strict" | "relaxed", parts: string[], closed = false): ValidateFunction {
  const key = `${mode} ${parts.join("\u0000")}`;
  let v = d.compiled.get(key);
  if (!v) {
    const schema = prepareSchema(standalone(parts, load(d)), mode === "relaxed") as Json;
    if (closed && schema.type === "object" && schema.properties && schema.additionalProperties === undefined) schema.additionalProperties = false;
    v = ajvFor(mode).compile(schema);
    d.compiled.set(key, v);
  }
  return v;
}

/** Trailing path parameters GitHub lets span segments (a file path, a ref such as `heads/feature/x`). */
const MULTI_SEGMENT = new Set(["path", "ref", "branch", "basehead"]);

function routeTable(d: Description) {
  if (!d.routes) {
    d.routes = Object.keys(load(d).paths as Json).map((template) => {
      const segs = template.split("/");
      const lit = segs.filter((s) => s && !s.startsWith("{")).length;
      const esc = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
      const last = segs.length - 1;
      const body = (greedy: boolean) => segs.map((s, i) => (s.startsWith("{") ? (greedy && i === last && MULTI_SEGMENT.has(s.slice(1, -1)) ? ".+" : "[^/]+") : esc(s))).join("/");
      return { re: new RegExp(`^${body(false)}$`), greedy: new RegExp(`^${body(true)}$`), literal: lit, template };
    });
    d.routes.sort((a, b) => b.literal - a.literal);
  }
  return d.routes;
}

/** The operation the description documents for `method path` (path without query), or undefined. */
function operationIn(d: Description, method: string, path: string): Operation | undefined {
  const m = method.toLowerCase();
  const paths = load(d).paths as Record<string, Json>;
  for (const greedy of [false, true]) {
    for (const r of routeTable(d)) {
      if (!(greedy ? r.greedy : r.re).test(path)) continue;
      const item = paths[r.template]!;
      const op = item[m] as Json | undefined;
      if (op) return { operationId: String(op.operationId), method: m, template: r.template, op, pathItem: item, description: d };
    }
  }
  return undefined;
}

function resolveParam(d: Description, p: Json): Param {
  const ref = p.$ref;
  if (typeof ref === "string") {
    const name = ref.split("/").pop()!;
    return ((load(d).components as Json).parameters as Record<string, Param>)[name]!;
  }
  return p as unknown as Param;
}

function scalarOk(schema: Json | undefined, raw: string): string | undefined {
  if (!schema) return undefined;
  const type = schema.type;
  if (Array.isArray(schema.enum) && !schema.enum.map(String).includes(raw)) return `must be one of ${schema.enum.join(", ")}`;
  if (type === "integer" && !/^-?\d+$/.test(raw)) return "must be an integer";
  if (type === "number" && Number.isNaN(Number(raw))) return "must be a number";
  if (type === "boolean" && raw !== "true" && raw !== "false") return "must be a boolean";
  return undefined;
}

export function describe(errors: ErrorObject[] | null | undefined, root: string): string[] {
  return (errors ?? []).slice(0, 5).map((e) => {
    const extra = e.keyword === "additionalProperties" ? ` (${String((e.params as Json).additionalProperty)})` : "";
    return `${root}${e.instancePath || ""} ${e.message ?? e.keyword}${extra}`;
  });
}

function parseBody(body: unknown): unknown {
  if (typeof body !== "string") return body;
  if (body === "") return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

function requestIn(d: Description, method: string, pathAndQuery: string, body: unknown): { operation?: Operation; verdict: ContractVerdict } {
  const url = new URL(pathAndQuery, "https://api.github.com");
  if (url.pathname === "/graphql") return { verdict: { kind: "no-contract", violations: [] } };
  const operation = operationIn(d, method, url.pathname);
  if (!operation) return { verdict: { kind: "validated", violations: [`${method.toUpperCase()} ${url.pathname}: no such route in ${d.label}`] } };
  const id = operation.operationId;
  const violations: string[] = [];
  const params = [...((operation.pathItem.parameters as Json[] | undefined) ?? []), ...((operation.op.parameters as Json[] | undefined) ?? [])].map((p) => resolveParam(d, p));

  const tmplSegs = operation.template.split("/");
  const pathSegs = url.pathname.split("/");
  tmplSegs.forEach((s, i) => {
    if (!s.startsWith("{")) return;
    const name = s.slice(1, -1);
    const raw = i === tmplSegs.length - 1 ? decodeURIComponent(pathSegs.slice(i).join("/")) : decodeURIComponent(pathSegs[i] ?? "");
    const bad = scalarOk(params.find((p) => p.in === "path" && p.name === name)?.schema, raw);
    if (bad) violations.push(`${id}: path parameter ${name} ${bad} (got ${JSON.stringify(raw)})`);
  });

  const query = params.filter((p) => p.in === "query");
  for (const [k, v] of url.searchParams) {
    const p = query.find((q) => q.name === k || q.name === k.replace(/\[\]$/, ""));
    if (!p) {
      violations.push(`${id}: query parameter ${k} is not documented`);
      continue;
    }
    const schema = p.schema?.type === "array" ? (p.schema.items as Json | undefined) : p.schema;
    const bad = scalarOk(schema, v);
    if (bad) violations.push(`${id}: query parameter ${k} ${bad} (got ${JSON.stringify(v)})`);
  }
  for (const p of query) if (p.required && !url.searchParams.has(p.name)) violations.push(`${id}: required query parameter ${p.name} is missing`);

  const rb = operation.op.requestBody as Json | undefined;
  const parsed = parseBody(body);
  const jsonSchema = ((rb?.content as Json | undefined)?.["application/json"] as Json | undefined)?.schema;
  if (parsed !== undefined && jsonSchema && typeof parsed === "object") {
    const v = validator(d, "strict", ["paths", operation.template, operation.method, "requestBody", "content", "application/json", "schema"], true);
    if (!v(parsed)) violations.push(...describe(v.errors, `${id}: request body $`));
  } else if (parsed === undefined && rb?.required && jsonSchema) {
    violations.push(`${id}: request body is required`);
  } else if (parsed !== undefined && !rb && !(typeof parsed === "object" && parsed && Object.keys(parsed).length === 0)) {
    violations.push(`${id}: a request body was sent but the operation takes none`);
  }
  return { operation, verdict: { kind: "validated", operationId: id, violations } };
}

/** Checks one request against api.github.com's description: route, path/query parameters, JSON body. */
export const checkRequest = (method: string, pathAndQuery: string, body: unknown) => requestIn(dotcom, method, pathAndQuery, body);

/**
 * The same check against the GHES description, for a request to a GitHub Enterprise Server's API: the
 * path as it reaches the server, `/api/v3/…` (`/api/graphql` is GHES's GraphQL: no contract).
 */
export function checkGhesRequest(method: string, pathAndQuery: string, body: unknown): { operation?: Operation; verdict: ContractVerdict } {
  if (pathAndQuery === "/api/graphql" || pathAndQuery.startsWith("/api/graphql?")) return { verdict: { kind: "no-contract", violations: [] } };
  if (!pathAndQuery.startsWith("/api/v3/")) return { verdict: { kind: "validated", violations: [`${method.toUpperCase()} ${pathAndQuery}: a GHES API path starts with /api/v3/`] } };
  return requestIn(ghes, method, pathAndQuery.slice("/api/v3".length), body);
}

/**
 * What GitHub may answer on any endpoint, documented or not: bad credentials, a rate limit (403/429), a
 * resource that is gone or hidden from this token (404 — GitHub's troubleshooting guide), its own outages. Tests of those paths are legitimate; their bodies are not checked (GitHub's vary).
 */
export const ANY_ENDPOINT_STATUSES: ReadonlySet<number> = new Set([401, 403, 404, 429, 500, 502, 503, 504]);

/**
 * Checks one mocked response: its status must be documented, its JSON body must have the documented types.
 * `operation` comes from `checkRequest` or `checkGhesRequest`, so the description it names is the one used.
 */
export function checkResponse(operation: Operation, status: number, body: unknown): string[] {
  const id = operation.operationId;
  const responses = (operation.op.responses as Json | undefined) ?? {};
  const key = String(status) in responses ? String(status) : "default" in responses ? "default" : undefined;
  if (!key && ANY_ENDPOINT_STATUSES.has(status)) return [];
  if (!key) return [`${id}: status ${status} is not documented (documented: ${Object.keys(responses).join(", ")})`];
  const content = (responses[key] as Json).content as Json | undefined;
  const parsed = parseBody(body);
  if (parsed === undefined || parsed === null || typeof parsed !== "object") return [];
  const media = content && Object.keys(content).find((m) => m.includes("json"));
  if (!media) return [];
  if (!(content[media] as Json).schema) return [];
  const v = validator(operation.description, "relaxed", ["paths", operation.template, operation.method, "responses", key, "content", media, "schema"]);
  return v(parsed) ? [] : describe(v.errors, `${id}: response ${status} body $`);
}
