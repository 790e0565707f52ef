/**
 * Item hashes this process wrote per item key since the thread's last getTuple (which starts every run):
 * only these are skipped on put. Bounded (least recently used keys go first); a forgotten key only costs
 * writing its items once more.
 */
export class KnownItems {
  readonly #known = new Map<string, Set<string>>();

  of(itemsKey: string): Set<string> {
    let known = this.#known.get(itemsKey);
    if (known) {
      this.#known.delete(itemsKey); // re-insert: the map's order is least recently used first
    } else {
      known = new Set();
      if (this.#known.size >= 256) this.#known.delete(this.#known.keys().next().value!);
    }
    this.#known.set(itemsKey, known);
    return known;
  }

  remember(itemsKey: string, newItems: Record<string, Buffer>): void {
    const known = this.of(itemsKey);
    for (const hash of Object.keys(newItems)) known.add(hash);
  }

  /** Pruned items are no longer stored: a later put must write them again. */
  forget(itemsKey: string, hashes: readonly string[]): void {
    const known = this.#known.get(itemsKey);
    for (const h of hashes) known?.delete(h);
  }

  delete(itemsKey: string): void {
    this.#known.delete(itemsKey);
  }
}
