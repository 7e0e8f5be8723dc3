import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature of the hub's completion webhooks, in the header `X-VerifyHub-Signature`:
 *
 *   X-VerifyHub-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 *
 * The hub signs with it (webhooks-in) and the Zapier app checks it: one implementation, one replay
 * window. A receiver recomputes the HMAC over the timestamp, a dot and the raw body bytes, compares it
 * in constant time, and refuses a timestamp more than HOOK_SIGNATURE_TOLERANCE_SECONDS from its clock.
 */
export const HOOK_SIGNATURE_HEADER = 'x-verifyhub-signature';

/**
 * Five minutes either way. The hub signs each delivery attempt when it sends it (retries are signed
 * anew), so a fresh delivery is seconds old; the window only has to absorb clock skew, and a captured
 * delivery cannot be replayed after it.
 */
export const HOOK_SIGNATURE_TOLERANCE_SECONDS = 300;

export function signHookPayload(secret: string, body: string | Buffer, timestampSeconds = Math.floor(Date.now() / 1000)): string {
  return `t=${timestampSeconds},v1=${hookMac(secret, body, timestampSeconds).toString('hex')}`;
}

/** Checks a delivery the way a receiver should; false for a bad, missing or stale signature. */
export function verifyHookSignature(secret: string, header: string | undefined, body: string | Buffer, options: { now?: number } = {}): boolean {
  if (!header) return false;
  const parts = new Map(header.split(',').map((p) => p.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = parts.get('v1');
  if (!Number.isInteger(t) || !given || !/^[a-f0-9]{64}$/.test(given)) return false;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - t) > HOOK_SIGNATURE_TOLERANCE_SECONDS) return false;
  return timingSafeEqual(Buffer.from(given, 'hex'), hookMac(secret, body, t));
}

function hookMac(secret: string, body: string | Buffer, timestampSeconds: number): Buffer {
  return createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest();
}
