import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { OpenSweError } from "../errors.js";

const VERSION = "v1";

/** AES-256-GCM for secrets at rest (user tokens, install secrets): `v1.<iv>.<tag>.<ciphertext>`, base64url. */
export class SecretBox {
  private readonly key: Buffer;
  private readonly previous: Buffer[];

  /** `previousHexKeys` only decrypt (key rotation: `OPEN_SWE_SECRET_KEY_PREVIOUS`); `seal` always uses `hexKey`. */
  constructor(hexKey: string, previousHexKeys: readonly string[] = []) {
    const parse = (hex: string): Buffer => {
      if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new OpenSweError("config_invalid", "the secret key must be 64 hex characters");
      return Buffer.from(hex, "hex");
    };
    this.key = parse(hexKey);
    this.previous = previousHexKeys.map(parse);
  }

  /** `aad` binds a ciphertext to where it is stored, so it cannot be swapped into another record. */
  seal(plaintext: string, aad = ""): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
  }

  open(sealed: string, aad = ""): string {
    return this.openWithKey(sealed, aad).plaintext;
  }

  /** True when `sealed` was made with a previous key: re-seal it so the old key can be retired. */
  needsReseal(sealed: string, aad = ""): boolean {
    return this.openWithKey(sealed, aad).keyIndex > 0;
  }

  private openWithKey(sealed: string, aad: string): { plaintext: string; keyIndex: number } {
    const [version, iv, tag, ct] = sealed.split(".");
    if (version !== VERSION || !iv || !tag || ct === undefined) throw new OpenSweError("secret_invalid", "not a sealed secret");
    const keys = [this.key, ...this.previous];
    let lastError: unknown;
    for (const [keyIndex, key] of keys.entries()) {
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
        decipher.setAAD(Buffer.from(aad));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return { plaintext: Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8"), keyIndex };
      } catch (err) {
        lastError = err;
      }
    }
    throw new OpenSweError("secret_invalid", "the secret could not be decrypted (wrong key or tampered)", { cause: lastError });
  }
}

/** The deployment's box (`OPEN_SWE_SECRET_KEY`, `OPEN_SWE_SECRET_KEY_PREVIOUS`), or null when no key is set. */
export function secretBoxFromEnv(env: { OPEN_SWE_SECRET_KEY?: string | undefined; OPEN_SWE_SECRET_KEY_PREVIOUS?: string | undefined }): SecretBox | null {
  if (!env.OPEN_SWE_SECRET_KEY) return null;
  return new SecretBox(env.OPEN_SWE_SECRET_KEY, env.OPEN_SWE_SECRET_KEY_PREVIOUS ? [env.OPEN_SWE_SECRET_KEY_PREVIOUS] : []);
}
