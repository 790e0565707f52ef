/** One server-sent event as the test's client parsed it. */
export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

export interface LiveStream {
  events: SseEvent[];
  /** Resolves with the first event (already received or to come) that `pred` accepts. */
  waitFor(pred: (e: SseEvent) => boolean): Promise<SseEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** A minimal EventSource over fetch: sends the cookie (and Last-Event-ID), parses events as they come. */
export async function openLiveStream(url: string, cookie: string, lastEventId?: string): Promise<LiveStream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { cookie, accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) }, signal: controller.signal, redirect: "manual" });
  if (res.status !== 200 || !res.body) throw new Error(`live stream answered ${res.status}: ${await res.text()}`);
  const events: SseEvent[] = [];
  const waiters: { pred: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }[] = [];
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const e: SseEvent = { event: "message", data: "" };
          for (const line of block.split("\n")) {
            const [field, ...rest] = line.split(":");
            const value = rest.join(":").replace(/^ /, "");
            if (field === "event") e.event = value;
            else if (field === "id") e.id = value;
            else if (field === "data") e.data += value;
          }
          events.push(e);
          for (const w of waiters.splice(0)) w.pred(e) ? w.resolve(e) : waiters.push(w);
        }
      }
    } catch {
      // closed by us
    }
  })();
  return {
    events,
    waitFor: (pred) => {
      const seen = events.find(pred);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ pred, resolve }));
    },
    ended,
    close: () => controller.abort(),
  };
}
