import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

/** Node's dotenv parser expands `\n` inside double quotes and takes single quotes literally; it has no other escapes. */
function formatValue(v: string): string {
  if (/^[A-Za-z0-9_./:@+-]*$/.test(v)) return v;
  if (!/[\r\n]/.test(v) && !v.includes("'")) return `'${v}'`;
  if (v.includes('"')) throw new Error("a value with both a newline and a double quote cannot be written to .env");
  return `"${v.replace(/\r?\n/g, "\\n")}"`;
}

/**
 * Sets `values` in a dotenv file: lines for those keys are replaced, every other line (comments, the
 * operator's own settings) is kept. Written to a temp file and renamed, always mode 0600 — the file
 * holds the app's private key and webhook secret.
 */
export function updateEnvFile(path: string, values: Record<string, string>): void {
  const keys = new Set(Object.keys(values));
  const kept = (existsSync(path) ? readFileSync(path, "utf8") : "").split("\n").filter((line) => {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line);
    return !(m && keys.has(m[1]!));
  });
  while (kept.length > 0 && kept[kept.length - 1] === "") kept.pop();
  const lines = [...kept, ...Object.entries(values).map(([k, v]) => `${k}=${formatValue(v)}`)];
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${lines.join("\n")}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}
