/** The lower-case `host[:port]` of a URL, or null when it is not one. */
export function hostOf(url: string): string | null {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
}
