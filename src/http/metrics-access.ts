/** How GET /metrics answers on one listener: to anyone, only with the bearer token, or not at all. */
export type MetricsAccess = "open" | "token" | "refused";

/** A listener only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Pure: a set METRICS_TOKEN is always required; without one, /metrics is open on a workstation, and in
 * production (NODE_ENV=production or APP_URL set) only on a listener bound to loopback.
 */
export function metricsAccess(o: { token: string | undefined; production: boolean; host: string }): MetricsAccess {
  if (o.token) return "token";
  if (!o.production || isLoopbackHost(o.host)) return "open";
  return "refused";
}

export const isProduction = (env: { NODE_ENV?: string | undefined; APP_URL?: string | undefined }): boolean => env.NODE_ENV === "production" || Boolean(env.APP_URL);
