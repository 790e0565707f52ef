import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../helpers/paths.js";

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  volumes?: string[];
  restart?: string;
  environment?: Record<string, string>;
  security_opt?: string[];
  deploy?: { replicas?: number };
}
const compose = (file: string) => parse(readFileSync(join(ROOT, file), "utf8"), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };

describe("compose.yaml", () => {
  const { services, volumes } = compose("compose.yaml");
  const workers = Object.entries(services).filter(([, s]) => s.command?.[0] === "worker");

  it("every worker replica has a DATA_DIR volume of its own, declared", () => {
    expect(workers.length).toBeGreaterThanOrEqual(2);
    const dataVolumes = workers.map(([, s]) => s.volumes?.find((v) => v.endsWith(":/data"))?.split(":")[0]);
    expect(dataVolumes.every(Boolean)).toBe(true);
    expect(new Set(dataVolumes).size).toBe(workers.length);
    for (const v of dataVolumes) expect(Object.keys(volumes)).toContain(v);
    for (const [, s] of workers) expect(s.deploy?.replicas ?? 1).toBe(1);
  });

  it("web and the workers run one image: OPEN_SWE_IMAGE (a published tag) or built here", () => {
    for (const s of [services.web, ...workers.map(([, w]) => w)]) expect([s?.image, s?.build]).toEqual(["${OPEN_SWE_IMAGE:-open-swe:local}", "."]);
  });

  it("the image's HEALTHCHECK asks the liveness probe (a Redis outage must not mark every process unhealthy)", () => {
    const check = readFileSync(join(ROOT, "Dockerfile"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("HEALTHCHECK "));
    expect(check).toContain("/livez");
    expect(check).not.toMatch(/\/health|\/readyz/);
  });

  it("web and the workers have a restart policy", () => {
    expect(services.web?.restart).toMatch(/^(always|unless-stopped|on-failure(:\d+)?)$/);
    for (const [, s] of workers) expect(s.restart).toMatch(/^(always|unless-stopped|on-failure(:\d+)?)$/);
  });

  it("the local-sandbox overlay reaches every worker service", () => {
    const local = compose("compose.local-sandbox.yaml").services;
    expect(Object.keys(local).sort()).toEqual(workers.map(([n]) => n).sort());
    for (const s of Object.values(local)) {
      expect(s.environment?.SANDBOX_TYPE).toBe("local");
      expect(s.security_opt).toEqual(["seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"]);
    }
  });

  it("the README's Deploy section names every variable the dashboard needs", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const deploy = readme.slice(readme.indexOf("## Deploy"), readme.indexOf("## Benchmarks"));
    for (const v of ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET", "APP_URL", "DASHBOARD_ADMINS", "OPEN_SWE_SECRET_KEY"]) expect(deploy).toContain(`\`${v}\``);
  });
});
