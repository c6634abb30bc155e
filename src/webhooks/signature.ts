// Standard Webhooks signing: the secret's format and the v1 signature of a message.
import { createHmac, createSecretKey } from 'node:crypto';

/** Random bytes in a secret: 32 (the specification asks for 24 to 64). */
const SECRET_BYTES = 32;

/** A new secret: `whsec_` + the base64 of 32 random bytes. */
export function newSecret(randomBytes: (size: number) => Uint8Array): string {
  return `whsec_${Buffer.from(randomBytes(SECRET_BYTES)).toString('base64')}`;
}

/**
 * The headers of one attempt (API.md §13) for a secret, made into a key once: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`. The body is hashed as the bytes sent (a string as its UTF-8).
 */
export function signer(secret: string): (messageId: string, nowMs: number, body: string | Uint8Array) => Record<string, string> {
  const key = createSecretKey(secretBytes(secret));
  return (messageId, nowMs, body) => {
    const timestamp = String(Math.floor(nowMs / 1000));
    const signature = createHmac('sha256', key).update(`${messageId}.${timestamp}.`).update(body).digest('base64');
    return { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
  };
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.slice(secret.indexOf('_') + 1), 'base64');
}
