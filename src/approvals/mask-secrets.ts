const SECRET_KEY = /pass(word|wd)?|secret|token|api[_-]?key|auth(orization)?|cookie|private[_-]?key|credential|session/i;

/** Shapes of credentials that travel in commands and request bodies. */
const SECRET_PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,})\b/g,
  /\bsk-(ant-)?[A-Za-z0-9_-]{16,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

export const MASK = "***";

function maskString(s: string): string {
  let out = s;
  for (const re of SECRET_PATTERNS) out = out.replace(re, (m) => (/^(Bearer|Basic|token)\s/i.test(m) ? `${m.split(/\s+/)[0]} ${MASK}` : MASK));
  // URL userinfo: https://user:secret@host
  out = out.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, `$1${MASK}@`);
  // KEY=value / --password value style assignments in shell text.
  out = out.replace(/\b([A-Za-z0-9_]*(?:PASSWORD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|CREDENTIALS?)[A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S+)/gi, `$1=${MASK}`);
  return out;
}

/** Pure: a copy of a tool's input with credentials replaced by `***` (by key name and by shape). */
export function maskSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return maskString(value);
  if (depth > 20 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_KEY.test(k) && (typeof v === "string" || typeof v === "number") ? MASK : maskSecrets(v, depth + 1)]),
  );
}
