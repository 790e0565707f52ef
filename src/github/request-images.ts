import { HumanMessage } from "@langchain/core/messages";
import { guardedFetch, type LookupAll } from "../net/http-guard.js";
import { errorMessage } from "../errors.js";

/** Images attached per request, at most. */
export const MAX_REQUEST_IMAGES = 5;
/** Per image (Anthropic's limit for one image block). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const MARKDOWN_IMAGE = /!\[[^\]]*\]\(\s*<?(https:\/\/[^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const HTML_IMAGE = /<img\b[^>]*\bsrc\s*=\s*["'](https:\/\/[^"']+)["'][^>]*>/gi;

/** Where GitHub keeps what people paste into issues and comments; nothing else is fetched. */
export function isGitHubAttachment(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" || url.username || url.password || url.port) return false;
  if (url.hostname === "github.com") return url.pathname.startsWith("/user-attachments/assets/");
  return ["user-images.githubusercontent.com", "private-user-images.githubusercontent.com"].includes(url.hostname);
}

/** The GitHub-hosted image URLs of a request's Markdown, in order, deduplicated, capped (pure). */
export function requestImageUrls(text: string): string[] {
  const found = [...text.matchAll(MARKDOWN_IMAGE), ...text.matchAll(HTML_IMAGE)].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((m) => m[1]!.replace(/&amp;/g, "&"));
  return [...new Set(found.filter(isGitHubAttachment))].slice(0, MAX_REQUEST_IMAGES);
}

/** The image type of the bytes by their signature; the server's content-type is not trusted (pure). */
export function sniffImageType(bytes: Uint8Array): "image/png" | "image/jpeg" | "image/gif" | "image/webp" | undefined {
  const b = (i: number) => bytes[i];
  if (b(0) === 0x89 && b(1) === 0x50 && b(2) === 0x4e && b(3) === 0x47 && b(4) === 0x0d && b(5) === 0x0a && b(6) === 0x1a && b(7) === 0x0a) return "image/png";
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return "image/jpeg";
  if (b(0) === 0x47 && b(1) === 0x49 && b(2) === 0x46 && b(3) === 0x38) return "image/gif";
  if (Buffer.from(bytes.subarray(0, 4)).toString("latin1") === "RIFF" && Buffer.from(bytes.subarray(8, 12)).toString("latin1") === "WEBP") return "image/webp";
  return undefined;
}

export interface RequestImage {
  url: string;
  mimeType: string;
  base64: string;
}

export interface RequestImages {
  images: RequestImage[];
  skipped: Array<{ url: string; reason: string }>;
}

/**
 * Fetches a request's images host-side: SSRF-guarded, our token sent to github.com only (a redirect to
 * another origin drops it), at most MAX_IMAGE_BYTES each, PNG/JPEG/GIF/WebP by signature. What cannot
 * be attached is listed with the reason; it never fails the run.
 */
export async function fetchRequestImages(urls: readonly string[], o: { token?: string; lookup?: LookupAll; signal?: AbortSignal; timeoutMs?: number } = {}): Promise<RequestImages> {
  const out: RequestImages = { images: [], skipped: [] };
  for (const url of urls) {
    try {
      const github = new URL(url).hostname === "github.com";
      const res = await guardedFetch(url, {
        headers: { accept: "image/*", ...(github && o.token ? { authorization: `token ${o.token}` } : {}) },
        maxBytes: MAX_IMAGE_BYTES + 1,
        timeoutMs: o.timeoutMs ?? 15_000,
        ...(o.lookup ? { lookup: o.lookup } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      });
      if (res.status !== 200) {
        out.skipped.push({ url, reason: `HTTP ${res.status}` });
        continue;
      }
      if (res.truncated || res.bytes.length > MAX_IMAGE_BYTES) {
        out.skipped.push({ url, reason: `larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB` });
        continue;
      }
      const mimeType = sniffImageType(res.bytes);
      if (!mimeType) {
        out.skipped.push({ url, reason: "not a PNG, JPEG, GIF or WebP image" });
        continue;
      }
      out.images.push({ url, mimeType, base64: res.bytes.toString("base64") });
    } catch (err) {
      out.skipped.push({ url, reason: errorMessage(err) });
    }
  }
  return out;
}

/** The request as message content: its text, a line naming images left out, then the images as image blocks. */
export function withImages(text: string, found: RequestImages): string | Array<Record<string, unknown>> {
  const note = found.skipped.length > 0 ? `\n(${found.skipped.length} image(s) in the request could not be attached: ${found.skipped.map((s) => `${s.url} — ${s.reason}`).join("; ")})` : "";
  if (found.images.length === 0) return text + note;
  return [{ type: "text", text: text + note }, ...found.images.map((i) => ({ type: "image_url", image_url: { url: `data:${i.mimeType};base64,${i.base64}` } }))];
}

/** Triggers whose text a person wrote (a comment, an issue): their images are attached. */
const PERSON_TRIGGERS = ["comment", "issue_opened", "issue_labeled"];

/**
 * The run's task message with the request's images attached (a person's request only); the token is
 * minted only when there is an image to fetch.
 */
export async function attachRequestImages(
  request: { trigger: string; text: string },
  task: HumanMessage,
  deps: { token: () => Promise<string>; lookup?: LookupAll; signal?: AbortSignal },
): Promise<HumanMessage> {
  const urls = PERSON_TRIGGERS.includes(request.trigger) ? requestImageUrls(request.text) : [];
  if (urls.length === 0) return task;
  const found = await fetchRequestImages(urls, { token: await deps.token(), ...(deps.lookup ? { lookup: deps.lookup } : {}), ...(deps.signal ? { signal: deps.signal } : {}) });
  return new HumanMessage({ content: withImages(task.text, found) as never });
}
