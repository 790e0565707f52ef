import type { DocumentNode, GraphQLError } from "graphql";
import { graphql, linearSchema } from "./linear-schema.js";

/**
 * One mocked exchange with api.linear.app/graphql held to Linear's schema (`linear-schema.ts`): the query
 * the SDK's client sent must be valid against the schema, its variables must coerce to the declared
 * input types, and the mocked answer must be exactly what a server of that schema could answer for that
 * query — executed against the schema with the mock as the resolved data, so a missing non-null field,
 * a wrong scalar, an unknown enum value or a field the query never selected each fail.
 */

type Json = Record<string, unknown>;

export interface LinearVerdict {
  /** The operation's name (`OpenSweLinearComment`), or `graphql` when the request was unreadable. */
  operation: string;
  violations: string[];
}

const documents = new Map<string, DocumentNode | readonly GraphQLError[]>();

function parsed(query: string): DocumentNode | readonly GraphQLError[] {
  let doc = documents.get(query);
  if (!doc) {
    try {
      const { parse, validate } = graphql();
      const ast = parse(query);
      const errors = validate(linearSchema(), ast);
      doc = errors.length > 0 ? errors : ast;
    } catch (err) {
      doc = [err as GraphQLError];
    }
    documents.set(query, doc);
  }
  return doc;
}

/** Keys the mock sends that the executed answer lacks, and values the schema would have sent otherwise. */
function differences(mock: unknown, real: unknown, path: string, out: string[]): void {
  if (Array.isArray(mock) && Array.isArray(real)) {
    for (const [i, m] of mock.entries()) differences(m, real[i], `${path}[${i}]`, out);
    return;
  }
  if (mock && typeof mock === "object" && real && typeof real === "object") {
    for (const [k, v] of Object.entries(mock as Json)) {
      if (!(k in (real as Json))) out.push(`${path}.${k}: not selected by the query (a server would not send it)`);
      else differences(v, (real as Json)[k], `${path}.${k}`, out);
    }
    return;
  }
  if (JSON.stringify(mock) !== JSON.stringify(real)) out.push(`${path}: the mock sends ${JSON.stringify(mock)}, the schema's type serialises it as ${JSON.stringify(real)}`);
}

function checkErrors(errors: unknown, label: string): string[] {
  if (!Array.isArray(errors) || errors.length === 0) return [`${label}: "errors" must be a non-empty list`];
  return errors.flatMap((e, i) => (e && typeof e === "object" && typeof (e as Json).message === "string" ? [] : [`${label}: errors[${i}] has no message`]));
}

const readField = (source: unknown, _args: unknown, _ctx: unknown, info: { path: { key: string | number } }) =>
  source && typeof source === "object" ? (source as Json)[String(info.path.key)] : undefined;

/** The violations of one exchange: the request body as sent, the mock's status and body. */
export function checkLinearExchange(requestBody: string, status: number, responseBody: unknown): LinearVerdict {
  let request: Json;
  try {
    request = JSON.parse(requestBody) as Json;
  } catch {
    return { operation: "graphql", violations: ["graphql: the request body is not JSON"] };
  }
  if (typeof request.query !== "string") return { operation: "graphql", violations: ["graphql: the request has no query"] };
  const doc = parsed(request.query);
  if (!("kind" in doc)) return { operation: "graphql", violations: doc.map((e) => `graphql: the query is not valid against Linear's schema: ${e.message}`) };
  const { execute, getOperationAST, getVariableValues } = graphql();
  const op = getOperationAST(doc, typeof request.operationName === "string" ? request.operationName : undefined);
  const operation = op?.name?.value ?? "graphql";
  if (!op) return { operation, violations: [`${operation}: no single operation to run`] };
  const coerced = getVariableValues(linearSchema(), op.variableDefinitions ?? [], (request.variables ?? {}) as Json);
  const violations = coerced.errors ? coerced.errors.map((e) => `${operation}: variables: ${e.message}`) : [];
  const body = typeof responseBody === "string" ? safeJson(responseBody) : responseBody;
  // A gateway's own page (HTML on a 502) is not Linear's API answering: nothing to hold it to.
  if (!body || typeof body !== "object") return { operation, violations: status === 200 ? [...violations, `${operation}: the mocked answer is not a JSON object`] : violations };
  const answer = body as Json;
  if (answer.errors !== undefined) violations.push(...checkErrors(answer.errors, operation));
  if (status !== 200 || answer.data === null || answer.data === undefined) {
    if (answer.errors === undefined) violations.push(`${operation}: an answer without data must carry "errors" (HTTP ${status})`);
    return { operation, violations };
  }
  if (coerced.errors) return { operation, violations };
  const result = execute({ schema: linearSchema(), document: doc, rootValue: answer.data, variableValues: request.variables as Json, fieldResolver: readField }) as {
    data?: unknown;
    errors?: readonly GraphQLError[];
  };
  if (result.errors) violations.push(...result.errors.map((e) => `${operation}: data.${e.path?.join(".") ?? ""}: ${e.message}`));
  else differences(answer.data, result.data, `${operation}: data`, violations);
  return { operation, violations };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
