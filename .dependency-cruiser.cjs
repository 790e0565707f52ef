// The house's layering (../shared/ARCHITECTURE.md, AGENTS.md "Layers"), checked by `npm run lint:deps` in
// .ci/run. An import may point down, or sideways inside its own room; never up, never across to another
// room of the same layer, never in a circle. Edges still to be moved are listed in
// .dependency-cruiser-known-violations.json (regenerate with `npm run lint:deps:baseline` only after
// removing one — a new edge fails the build).

/** Top to bottom. Each entry is a path regex (one top-level room or file per alternative). */
const LAYERS = [
  { name: "entry", rooms: ["src/main\\.ts", "src/cli\\.ts", "src/cli/", "src/app\\.ts", "src/startup-summary\\.ts", "bench/"] },
  { name: "edge", rooms: ["src/http/", "src/setup/", "src/operator/", "jobs/"] },
  { name: "run", rooms: ["src/worker/", "src/runs/"] },
  { name: "feature", rooms: ["src/sources/", "src/autofix/", "src/dashboard/", "src/approvals/"] },
  { name: "github", rooms: ["src/github/", "src/threads/"] },
  { name: "engine", rooms: ["src/agent/", "src/review/", "src/sandbox/", "src/mcp/"] },
  { name: "state", rooms: ["src/store/", "src/queue/", "src/observability/"] },
  { name: "config", rooms: ["src/config/"] },
  { name: "shared", rooms: ["src/net/", "src/shared/", "src/errors\\.ts", "src/logger\\.ts"] },
];

const anyOf = (rooms) => `^(${rooms.join("|")})`;

const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `layer-${layer.name}-not-up`,
  comment: `${layer.name} (${layer.rooms.join(", ")}) imports only its own layer or below`,
  severity: "error",
  from: { path: anyOf(layer.rooms) },
  to: { path: anyOf(LAYERS.slice(0, i + 1).flatMap((l) => l.rooms)) },
}));

// Rooms of one layer don't reach into each other: a helper two of them need moves down.
const sideways = LAYERS.slice(1, -1)
  .filter((layer) => layer.rooms.length > 1)
  .map((layer) => ({
    name: `layer-${layer.name}-not-sideways`,
    comment: `a room of ${layer.name} does not import another room of the same layer`,
    severity: "error",
    from: { path: anyOf(layer.rooms) }, // $1 = the importing room
    to: { path: anyOf(layer.rooms), pathNot: "^$1" },
  }));

module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "no import circles", from: {}, to: { circular: true } },
    {
      name: "bench-is-its-own-entry",
      severity: "error",
      comment: "src/ reaches bench/ only through cli.ts's dynamic import (benchmarks are their own entry)",
      from: { path: "^src/" },
      to: { path: "^bench/", dependencyTypesNot: ["dynamic-import"] },
    },
    {
      name: "bench-only-from-cli",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/cli\\.ts$" },
      to: { path: "^bench/" },
    },
    {
      name: "github-not-agent",
      severity: "error",
      comment: "GitHub's handlers and host-side tools are given to the agent; they never reach into it",
      from: { path: "^src/github/" },
      to: { path: "^src/agent/" },
    },
    { name: "no-unresolvable", severity: "error", from: {}, to: { couldNotResolve: true, path: "^\\." } },
    ...upward,
    ...sideways,
  ],
  options: {
    parser: "swc", // TypeScript 7 (native) has no JS API; swc keeps `import type` edges, which count too
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
  },
};
