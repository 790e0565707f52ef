import { OpenSweError } from "../../errors.js";
import type { InstallKeyFetcher } from "./connect-jwt.js";

/** Where Atlassian publishes the public keys that sign Connect lifecycle callbacks. */
export const INSTALL_KEYS_URL = "https://connect-install-keys.atlassian.com";

export const fetchAtlassianInstallKey: InstallKeyFetcher = async (kid) => {
  const res = await fetch(`${INSTALL_KEYS_URL}/${encodeURIComponent(kid)}`, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new OpenSweError("install_key_unavailable", `install key ${kid}: HTTP ${res.status}`);
  const pem = (await res.text()).trim();
  if (!/^-----BEGIN PUBLIC KEY-----[\s\S]+-----END PUBLIC KEY-----$/.test(pem)) throw new OpenSweError("install_key_unavailable", `install key ${kid}: not a PEM public key`);
  return pem;
};

/** Keys never change for a kid: keep the last `max` fetched (a failed fetch is not kept), one fetch per kid at a time. */
export function cachedKeyFetcher(fetchKey: InstallKeyFetcher, max = 64): InstallKeyFetcher {
  const cache = new Map<string, Promise<string>>();
  return (kid) => {
    const hit = cache.get(kid);
    if (hit) return hit;
    const pending = fetchKey(kid);
    cache.set(kid, pending);
    pending.catch(() => cache.delete(kid));
    while (cache.size > max) cache.delete(cache.keys().next().value!);
    return pending;
  };
}
