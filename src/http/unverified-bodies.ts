import { isIPv4 } from "node:net";

/** What the webhook route holds at once before a signature is checked: per sending address and in total. */
export interface BodyCaps {
  perAddressBodies: number;
  perAddressBytes: number;
  totalBodies: number;
  totalBytes: number;
}

export interface Held {
  bodies: number;
  bytes: number;
}

export interface BodyRefusal {
  status: 429 | 503;
  code: "address_busy" | "server_busy";
  reason: string;
  /** Seconds, for `Retry-After`. */
  retryAfter: number;
}

const RETRY_AFTER_SECONDS = 1;

/**
 * Pure: may `more` (one new body, or more bytes of one already held) be added to what this address and
 * the whole route hold? The address's caps answer 429 (that sender waits), the route's 503 (everyone does).
 */
export function bodyRefusal(address: Held, total: Held, more: Held, caps: BodyCaps): BodyRefusal | null {
  if (address.bodies + more.bodies > caps.perAddressBodies || address.bytes + more.bytes > caps.perAddressBytes) {
    return { status: 429, code: "address_busy", reason: "too many unverified webhook bodies from this address; retry later", retryAfter: RETRY_AFTER_SECONDS };
  }
  if (total.bodies + more.bodies > caps.totalBodies || total.bytes + more.bytes > caps.totalBytes) {
    return { status: 503, code: "server_busy", reason: "too many unverified webhook bodies; retry later", retryAfter: RETRY_AFTER_SECONDS };
  }
  return null;
}

/** Pure: the key a sender's caps are counted under: an IPv4 address, or an IPv6 address's /64 (one host's usual share). */
export function addressKey(remote: string | undefined): string {
  if (!remote) return "unknown";
  const v4 = remote.startsWith("::ffff:") ? remote.slice(7) : remote;
  if (isIPv4(v4)) return v4;
  const [head = "", tail] = remote.toLowerCase().split("::");
  const groups = head.split(":").filter(Boolean);
  // `a:b::` and `a:b::c`: the groups the `::` stands for are zeros.
  const full = tail === undefined ? groups : [...groups, ...Array(Math.max(0, 8 - groups.length - tail.split(":").filter(Boolean).length)).fill("0"), ...tail.split(":").filter(Boolean)];
  return `${full
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** One held body: `take` its bytes as they arrive (null, or why they may not be held), `release` once it is verified or refused. */
export interface BodySlot {
  take(bytes: number): BodyRefusal | null;
  release(): void;
}

/**
 * The bodies the webhook route holds before their signature is checked. A body is counted from its
 * headers until its request is answered, with the larger of its declared length and the bytes received.
 */
export class UnverifiedBodies {
  private readonly byAddress = new Map<string, Held>();
  private readonly total: Held = { bodies: 0, bytes: 0 };

  constructor(private readonly caps: BodyCaps) {}

  /** A slot for one body from `address` announcing `declared` bytes (0 when chunked), or why not. */
  open(address: string, declared: number): { slot: BodySlot } | { refusal: BodyRefusal } {
    const held = this.byAddress.get(address) ?? { bodies: 0, bytes: 0 };
    const refusal = bodyRefusal(held, this.total, { bodies: 1, bytes: declared }, this.caps);
    if (refusal) return { refusal };
    this.add(address, held, 1, declared);
    let reserved = declared;
    let received = 0;
    let released = false;
    return {
      slot: {
        take: (bytes) => {
          received += bytes;
          if (released || received <= reserved) return null;
          const more = received - reserved;
          const now = this.byAddress.get(address)!;
          const over = bodyRefusal(now, this.total, { bodies: 0, bytes: more }, this.caps);
          if (over) return over;
          this.add(address, now, 0, more);
          reserved = received;
          return null;
        },
        release: () => {
          if (released) return;
          released = true;
          const now = this.byAddress.get(address)!;
          this.add(address, now, -1, -reserved);
          if (now.bodies === 0) this.byAddress.delete(address);
        },
      },
    };
  }

  /** What is held now (for tests and the refusal log). */
  held(address?: string): Held {
    return address === undefined ? { ...this.total } : { ...(this.byAddress.get(address) ?? { bodies: 0, bytes: 0 }) };
  }

  private add(address: string, held: Held, bodies: number, bytes: number): void {
    held.bodies += bodies;
    held.bytes += bytes;
    this.total.bodies += bodies;
    this.total.bytes += bytes;
    this.byAddress.set(address, held);
  }
}
