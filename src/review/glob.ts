/**
 * gitignore-flavoured glob matching for repo-relative paths: `*` and `?` stay within a segment,
 * `**` spans segments, `{a,b}` alternates, a pattern without `/` matches at any depth, and a
 * pattern naming a directory (`dist/`, `vendor`) matches everything under it.
 */
export function globToRegExp(pattern: string): RegExp {
  let p = pattern.trim().replace(/^\.\//, "");
  const anchored = p.startsWith("/") || p.replace(/\/$/, "").includes("/");
  p = p.replace(/^\//, "").replace(/\/$/, "");
  let re = "";
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === "*") {
      if (p[i + 1] === "*") {
        const slash = p[i + 2] === "/";
        re += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "{") {
      const close = p.indexOf("}", i);
      if (close === -1) re += "\\{";
      else {
        re += `(?:${p
          .slice(i + 1, close)
          .split(",")
          .map(escape)
          .join("|")})`;
        i = close;
      }
    } else re += escape(c);
  }
  return new RegExp(`^${anchored ? "" : "(?:.*/)?"}${re}(?:/.*)?$`);
}

function escape(s: string): string {
  return s.replace(/[.+^${}()|[\]\\*?]/g, "\\$&");
}

export function matchesAnyGlob(path: string, patterns: readonly string[]): string | null {
  for (const p of patterns) if (p.trim() !== "" && globToRegExp(p).test(path)) return p;
  return null;
}
