import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { OpenSweError } from "../errors.js";

const VERSION = "v1";

/** AES-256-GCM for secrets at rest (user tokens, install secrets): `v1.<iv>.<tag>.<ciphertext>`, base64url. */
export class SecretBox {
  private readonly key: Buffer;

  constructor(hexKey: string) {
    if (!/^[0-9a-fA-F]{64}$/.test(hexKey)) throw new OpenSweError("config_invalid", "the secret key must be 64 hex characters");
    this.key = Buffer.from(hexKey, "hex");
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
    const [version, iv, tag, ct] = sealed.split(".");
    if (version !== VERSION || !iv || !tag || ct === undefined) throw new OpenSweError("secret_invalid", "not a sealed secret");
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
    } catch (err) {
      throw new OpenSweError("secret_invalid", "the secret could not be decrypted (wrong key or tampered)", { cause: err });
    }
  }
}
