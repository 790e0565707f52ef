/** The names of a source's settings that are unset (or unusable), for the start-up warning; undefined when none is. */
export function missingEnv(values: Record<string, unknown>): string | undefined {
  const missing = Object.entries(values)
    .filter(([, v]) => v === undefined || v === null || v === "")
    .map(([k]) => k);
  return missing.length > 0 ? missing.join(", ") : undefined;
}
