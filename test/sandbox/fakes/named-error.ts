/** Errors shaped like a vendor SDK's (the providers triage by class name and fields, as the SDKs expose them). */
export function namedError(name: string, message: string, fields: Record<string, unknown> = {}): Error {
  const e = new Error(message);
  e.name = name;
  return Object.assign(e, fields);
}
