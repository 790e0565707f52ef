/** The placeholder key for a list stored element by element: `{ [LIST_MARK]: <what store returned> }`. */
export const LIST_MARK = "__open_swe_items__";

// Deep enough for a channel value (the message list), a state update (`{ messages }`) and a list of Send
// packets (`[{ node, args: { messages } }]`: langchain's agent sends the whole state at every tool step).
const DEPTH = 3;

/** A non-empty list of objects (messages): worth storing element by element, by content. */
export function isObjectList(value: unknown): value is object[] {
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "object" && v !== null);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * Replaces each list of objects, at the top or a few plain-object levels down, by a placeholder holding
 * what `store` returns for it (a reference to the elements' content hashes). `store` gets the depth left, to split the
 * elements themselves with (`splitLists(element, store, depth - 1)` while depth > 0). Never mutates `value`.
 */
export type StoreList = (list: object[], depth: number) => Promise<unknown>;
export type LoadList = (ref: unknown, depth: number) => Promise<unknown[]>;

export async function splitLists(value: unknown, store: StoreList, depth = DEPTH): Promise<unknown> {
  if (isObjectList(value)) return { [LIST_MARK]: await store(value, depth) };
  if (depth === 0 || typeof value !== "object" || value === null) return value;
  const send = value as { lg_name?: unknown; node?: unknown; args?: unknown; timeout?: unknown };
  if (send.lg_name === "Send") {
    // What the serializer writes for a Send; langgraph reads it back as a Send-shaped object.
    return { node: send.node, args: await splitLists(send.args, store, depth - 1), ...(send.timeout !== undefined ? { timeout: send.timeout } : {}) };
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = await splitLists(v, store, depth - 1);
  return out;
}

/** The inverse of `splitLists` on a freshly deserialised value (mutated in place and returned); `load` mirrors `store`. */
export async function joinLists(value: unknown, load: LoadList, depth = DEPTH): Promise<unknown> {
  if (!isPlainObject(value)) return value;
  if (Object.keys(value).length === 1 && Object.prototype.hasOwnProperty.call(value, LIST_MARK)) return load(value[LIST_MARK], depth);
  if (depth === 0) return value;
  for (const [k, v] of Object.entries(value)) value[k] = await joinLists(v, load, depth - 1);
  return value;
}
