import type { Redis } from "ioredis";
import { FindingsStore } from "./findings-store.js";
import { StyleStore } from "./style/style-store.js";
import { RunInsights } from "../store/run-insights.js";

/**
 * The review stores of a worker (findings, learned style), under the queue prefix. Repos are keyed
 * lower-cased (GitHub names are case-insensitive), so a review, the analyzer and the CLI agree whatever
 * casing a payload or an operator used.
 */
export function reviewStores(redis: Redis, prefix: string): { findings: FindingsStore; styles: StyleStore } {
  return { findings: new FindingsStore(redis, `${prefix}:`, new RunInsights(redis, prefix)), styles: new StyleStore(redis, `${prefix}:`) };
}

export function storeRepo(owner: string, repo: string): { owner: string; repo: string } {
  return { owner: owner.toLowerCase(), repo: repo.toLowerCase() };
}
