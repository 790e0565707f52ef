/** The HTTP clients whose configuration files can carry a request's method, URL or body. */
export type Client = "curl" | "wget" | "gh" | "httpie";

interface ConfigPlace {
  /** A written path that is this client's configuration file. */
  file: RegExp;
  /** The same file named anywhere in the command (a `cp`, a `python -c` that writes it). */
  mention: RegExp;
  /** Variables that move where the client looks for its configuration. */
  env: RegExp;
}

const PLACES: Record<Client, ConfigPlace> = {
  curl: { file: /(?:^|\/)[._]curlrc$/, mention: /[._]curlrc\b/g, env: /^(?:CURL_HOME|XDG_CONFIG_HOME|HOME)$/ },
  wget: { file: /(?:^|\/)\.?wgetrc$/, mention: /wgetrc\b/g, env: /^(?:WGETRC|SYSTEM_WGETRC|HOME)$/ },
  gh: { file: /(?:^|\/)gh\/(?:config|hosts)\.ya?ml$/, mention: /gh\/(?:config|hosts)\.ya?ml\b/g, env: /^(?:GH_CONFIG_DIR|XDG_CONFIG_HOME|HOME)$/ },
  httpie: { file: /(?:^|\/)(?:httpie|xh)\/config\.json$/, mention: /(?:httpie|xh)\/config\.json\b/g, env: /^(?:HTTPIE_CONFIG_DIR|XDG_CONFIG_HOME|HOME)$/ },
};

/** A file the command writes before the call, with its text when we could read it. */
export interface WrittenFile {
  path: string;
  text: string | null;
}

export type ClientConfig = { kind: "none" } | { kind: "args"; args: string[] } | { kind: "unseen"; why: string };

/**
 * The configuration a command sets up for a client before it calls it: a config file it writes
 * (`echo 'data = …' > ~/.curlrc`), or a variable that moves where the client looks (`CURL_HOME=.`).
 * Readable content becomes arguments placed before the command's own (as the client reads it);
 * content we cannot read, a file named some other way (`cp x ~/.curlrc`), a moved config directory,
 * or any gh config (aliases, pager and editor commands) cannot be checked.
 */
export function clientConfig(client: Client, raw: string, writes: WrittenFile[], assigned: ReadonlySet<string>): ClientConfig {
  const place = PLACES[client];
  const moved = [...assigned].find((name) => place.env.test(name));
  if (moved !== undefined) return { kind: "unseen", why: `\`${moved}\` moves where ${client} reads its configuration` };
  const mentions = raw.match(place.mention)?.length ?? 0;
  if (mentions === 0) return { kind: "none" };
  const mine = writes.filter((w) => place.file.test(w.path));
  const unseen: ClientConfig = { kind: "unseen", why: `the command writes ${client}'s configuration file, and what it writes cannot be checked` };
  if (mentions > mine.length || mine.some((w) => w.text === null) || client === "gh") return unseen;
  const text = mine.map((w) => w.text).join("\n");
  if (client === "curl") return { kind: "args", args: curlConfigArgs(text) };
  if (client === "wget") return { kind: "args", args: wgetrcArgs(text) };
  const options = httpieDefaultOptions(text);
  return options === null ? unseen : { kind: "args", args: options };
}

/** `curl -K` / `.curlrc` lines as arguments (`url = x`, `data = "…"`, `-d x`, `silent`). */
export function curlConfigArgs(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const m = /^(-{0,2}[A-Za-z][\w-]*)\s*[=:\s]\s*(.*)$/.exec(line);
    if (!m) {
      out.push(line.startsWith("-") ? line : `--${line}`);
      continue;
    }
    const name = m[1]!.startsWith("-") ? m[1]! : `--${m[1]!}`;
    out.push(name, m[2]!.replace(/^"(.*)"$/s, "$1").replace(/\\(.)/g, "$1"));
  }
  return out;
}

/** `.wgetrc` commands (`post_data = …`, `method = POST`) as the long options they stand for. */
function wgetrcArgs(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const m = /^\s*([A-Za-z_-]+)\s*=\s*(.*?)\s*$/.exec(raw);
    if (m && !raw.trim().startsWith("#")) out.push(`--${m[1]!.toLowerCase().replace(/_/g, "-")}=${m[2]!}`);
  }
  return out;
}

/** httpie's (and xh's) `config.json`: its `default_options` are arguments; unreadable JSON is null. */
function httpieDefaultOptions(text: string): string[] | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== "object") return null;
    const options = (parsed as Record<string, unknown>)["default_options"];
    if (options === undefined) return [];
    return Array.isArray(options) && options.every((o) => typeof o === "string") ? options : null;
  } catch {
    return null;
  }
}
