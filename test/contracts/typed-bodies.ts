/**
 * Mocked bodies whose shape the compiler held to a vendor's published types (`slack-contract.ts`,
 * `atlassian-contract.ts`). Type checks leave nothing at run time, so each typed helper hands its body
 * through `typedBody`, and the nock hook counts an exchange as checked only when its reply is one of these
 * objects (`npm run test:contracts`); a body written inline past the helpers counts as "no contract".
 */
const typed = new WeakSet<object>();

export function typedBody<T extends object>(body: T): T {
  typed.add(body);
  return body;
}

export const isTypedBody = (body: unknown): boolean => typeof body === "object" && body !== null && typed.has(body);

/** A body as a mock sends it: every field optional at every depth, but each one present typed as published. */
export type Sent<T> = T extends (infer U)[] ? Sent<U>[] : T extends object ? { [K in keyof T]?: Sent<T[K]> } : T;

const excused = new WeakMap<object, string>();

/** A body a test sends knowing the vendor never would (a guard's test), with the reason: counted as excused, not checked. */
export function offContract<T extends object>(body: T, reason: string): T {
  excused.set(body, reason);
  return body;
}

export const isOffContract = (body: unknown): boolean => typeof body === "object" && body !== null && excused.has(body);
