import { isIP } from "node:net";
import { networkInterfaces } from "node:os";

export type AddressClass =
  | "public"
  /** An address of one of this machine's own interfaces: reaches services bound to 0.0.0.0 / ::. */
  | "host"
  | "loopback"
  | "private"
  | "cgnat"
  | "ula"
  | "link-local"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "reserved";

function ipv4Octets(ip: string): [number, number, number, number] | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4) return undefined;
  const nums = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  if (nums.some((n) => !(n >= 0 && n <= 255))) return undefined;
  return nums as [number, number, number, number];
}

/** Canonical text of an address (dotted quad, or eight hex groups) so different spellings compare equal. */
function canonical(ip: string): string | undefined {
  if (isIP(ip) === 4) return ipv4Octets(ip)?.join(".");
  return ipv6Groups(ip)
    ?.map((g) => g.toString(16))
    .join(":");
}

/**
 * Every address of every local interface, read at each call (getifaddrs: tens of microseconds), so an
 * address added after start is refused too. Link-local and loopback ones are refused by class anyway.
 */
export function hostAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const { address } of list ?? []) {
      const c = canonical(address.split("%")[0] ?? address);
      if (c) out.add(c);
    }
  }
  return out;
}

function classifyV4(ip: string, own: ReadonlySet<string>): AddressClass {
  const o = ipv4Octets(ip);
  if (!o) return "reserved";
  const [a, b, c, d] = o;
  if (own.has(o.join(".")) && a !== 127) return "host";
  if (a === 169 && b === 254 && c === 169 && d === 254) return "metadata";
  if (a === 0) return "unspecified";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 100 && b >= 64 && b <= 127) return "cgnat";
  if (a === 169 && b === 254) return "link-local";
  if (a >= 224 && a <= 239) return "multicast";
  // 192.0.0/24 IETF, 192.0.2/24 198.51.100/24 203.0.113/24 documentation, 198.18/15 benchmarking, 240/4 and broadcast.
  if ((a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 198 && (b === 18 || b === 19)) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113) || a >= 240) {
    return "reserved";
  }
  return "public";
}

/** Eight 16-bit groups of an IPv6 address, with a dotted IPv4 tail expanded. */
function ipv6Groups(ip: string): number[] | undefined {
  let text = ip.split("%")[0] ?? ip; // drop a zone id
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    const o = ipv4Octets(tail);
    if (!o) return undefined;
    text = `${text.slice(0, lastColon + 1)}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (s: string): number[] => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)));
  const head = parse(halves[0] ?? "");
  const rest = halves.length === 2 ? parse(halves[1] ?? "") : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...new Array<number>(Math.max(fill, 0)).fill(0), ...rest];
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g) || g < 0 || g > 0xffff)) return undefined;
  return groups;
}

function embeddedV4(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

function classifyV6(ip: string, own: ReadonlySet<string>): AddressClass {
  const g = ipv6Groups(ip);
  if (!g) return "reserved";
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 0) return "unspecified";
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 1) return "loopback";
  if (own.has(g.map((x) => x.toString(16)).join(":")) && (g0 & 0xffc0) !== 0xfe80) return "host";
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::)
  // all reach an IPv4 host: judge the embedded address.
  if (upperZero && (g5 === 0xffff || g5 === 0)) return classifyV4(embeddedV4(g6, g7), own);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyV4(embeddedV4(g6, g7), own);
  if (g0 === 0x2002) return classifyV4(embeddedV4(g1, g2), own);
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254) return "metadata";
  if ((g0 & 0xfe00) === 0xfc00) return "ula";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xffc0) === 0xfec0) return "private"; // deprecated site-local
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  if ((g0 === 0x2001 && g1 === 0x0db8) || (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0)) return "reserved";
  return "public";
}

/**
 * Classifies an IP literal; anything unparsable is `reserved` (never `public`). `own` is the set of
 * this machine's addresses (default: read now); one of them is `host` even when it is public.
 */
export function classifyAddress(ip: string, own: ReadonlySet<string> = hostAddresses()): AddressClass {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const version = isIP(bare.split("%")[0] ?? bare);
  if (version === 4) return classifyV4(bare, own);
  if (version === 6) return classifyV6(bare, own);
  return "reserved";
}
