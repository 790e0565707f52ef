import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface DaytonaRoute {
  method: string;
  template: string;
  pattern: RegExp;
}

/**
 * Every operation (method + path template) of a client `@daytonaio/sdk` generates from Daytona's OpenAPI
 * description (`@daytona/api-client` for the control plane, `@daytona/toolbox-api-client` for the
 * toolbox): read out of the generated code the SDK runs, since the packages ship no JSON description.
 */
export function daytonaRoutes(pkg: "@daytona/api-client" | "@daytona/toolbox-api-client"): DaytonaRoute[] {
  const dir = join(dirname(createRequire(import.meta.url).resolve(pkg)), "api");
  const routes: DaytonaRoute[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith("-api.js"))) {
    for (const m of readFileSync(join(dir, file), "utf8").matchAll(/localVarPath = `([^`]*)`[\s\S]*?method: '([A-Z]+)'/g)) {
      const template = m[1]!;
      routes.push({ method: m[2]!, template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`) });
    }
  }
  if (routes.length === 0) throw new Error(`${pkg}: no generated operations found; the Daytona fake needs updating`);
  return routes;
}

/** The operation `method path` (query string ignored) is, or undefined: a request Daytona does not define. */
export function daytonaOperation(routes: DaytonaRoute[], method: string, path: string): DaytonaRoute | undefined {
  const bare = path.split("?")[0]!;
  return routes.find((r) => r.method === method && r.pattern.test(bare));
}
