/** How many live views (SSE streams) one viewer may hold open in this web process. */
export interface LiveStreamLimits {
  perSession: number;
  perAddress: number;
}

export type LiveStreamGrant = { ok: true; release(): void } | { ok: false; reason: string };

/**
 * Pure: may one more stream open, given how many this session and this address hold? The reason is
 * what the 429 says.
 */
export function liveStreamDecision(held: { session: number; address: number }, limits: LiveStreamLimits): string | null {
  if (held.session >= limits.perSession) return `this session already has ${held.session} live views open (at most ${limits.perSession}): close a run tab and reload`;
  if (held.address >= limits.perAddress) return `your address already has ${held.address} live views open (at most ${limits.perAddress})`;
  return null;
}

/**
 * Counts the open live views per session and per client address (the socket's peer: a proxy in front
 * counts as one address, so size DASHBOARD_LIVE_STREAMS_PER_ADDRESS for it). Each stream takes a
 * grant and releases it once when it ends, however it ends.
 */
export class LiveStreamLimit {
  private readonly bySession = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly limits: LiveStreamLimits) {}

  acquire(sessionId: string, address: string): LiveStreamGrant {
    const reason = liveStreamDecision({ session: this.bySession.get(sessionId) ?? 0, address: this.byAddress.get(address) ?? 0 }, this.limits);
    if (reason) return { ok: false, reason };
    bump(this.bySession, sessionId, 1);
    bump(this.byAddress, address, 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        bump(this.bySession, sessionId, -1);
        bump(this.byAddress, address, -1);
      },
    };
  }
}

function bump(m: Map<string, number>, key: string, by: number): void {
  const n = (m.get(key) ?? 0) + by;
  if (n <= 0) m.delete(key);
  else m.set(key, n);
}
