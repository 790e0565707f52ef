import { Writable } from "node:stream";
import nock from "nock";
import { createLogger } from "../../../src/logger.js";
import { offContract } from "../../contracts/typed-bodies.js";

export interface GraphqlCall {
  query: string;
  variables: Record<string, unknown>;
}

/**
 * One expected GraphQL call to api.linear.app, matched by its operation name; `calls` records what was
 * sent. An unused mock fails the test (test/helpers/setup-each.ts).
 */
export function mockLinear(
  operation: string,
  answer: unknown,
  opts: {
    status?: number;
    auth?: string;
    calls?: GraphqlCall[];
    headers?: Record<string, string>;
    when?: (variables: Record<string, unknown>) => boolean;
    delayMs?: number;
    /** Why this answer is one Linear would never send (it is then counted as excused, not checked). */
    offContract?: string;
  } = {},
): nock.Scope {
  const op = new RegExp(`^\\s*(query|mutation) ${operation}\\b`);
  const interceptor = nock("https://api.linear.app", { reqheaders: { authorization: opts.auth ?? "lin_api_test" } }).post("/graphql", (body: GraphqlCall) => {
    if (typeof body?.query !== "string" || !op.test(body.query)) return false;
    if (opts.when && !opts.when(body.variables ?? {})) return false;
    opts.calls?.push(body);
    return true;
  });
  const body = opts.offContract !== undefined && typeof answer === "object" && answer !== null ? offContract(answer, opts.offContract) : typeof answer === "string" ? answer : JSON.stringify(answer);
  return (opts.delayMs ? interceptor.delay(opts.delayMs) : interceptor).reply(opts.status ?? 200, body as string, { "content-type": "application/json", ...opts.headers });
}

/** Linear's answer for an id that does not exist (a GraphQL error, HTTP 200). */
export function notFound(entity: string) {
  return {
    data: null,
    errors: [
      {
        message: `Entity not found: ${entity}`,
        path: [entity.toLowerCase()],
        extensions: { type: "invalid input", code: "INPUT_ERROR", userError: true, userPresentableMessage: `Could not find referenced ${entity}.` },
      },
    ],
  };
}

export const INTERNAL_ERROR = { errors: [{ message: "Internal server error", extensions: { type: "internal error", code: "INTERNAL_SERVER_ERROR" } }] };

export function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger("debug", "test", stream), lines };
}
