import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifiedBodyHash } from "../../src/http/delivery-gate.js";

const SECRET = "s3cret";
const BODY = '{"action":"created"}';
const HEX = createHmac("sha256", SECRET).update(BODY).digest("hex");

describe("verifiedBodyHash", () => {
  const rows: [string, string, string | undefined, string | null][] = [
    ["the body's signature", BODY, `sha256=${HEX}`, HEX],
    ["no header", BODY, undefined, null],
    ["sha1 only", BODY, `sha1=${HEX.slice(0, 40)}`, null],
    ["another body's signature", `${BODY} `, `sha256=${HEX}`, null],
    ["a truncated signature", BODY, `sha256=${HEX.slice(0, 63)}`, null],
    ["upper-case hex (GitHub sends lower)", BODY, `sha256=${HEX.toUpperCase()}`, null],
  ];
  for (const [name, body, header, hash] of rows) it(name, () => expect(verifiedBodyHash(SECRET, body, header)).toBe(hash));
});
