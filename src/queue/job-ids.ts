/** BullMQ custom ids may not contain ':' nor be integers; `__` separates parts. */
export function jobId(...parts: (string | number)[]): string {
  return ["j", ...parts.map((p) => String(p).replace(/:/g, "_"))].join("__");
}

export function deliveryJobId(deliveryId: string): string {
  return jobId("gh", deliveryId);
}
