import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature of the hub's completion webhooks, in the header `X-VerifyHub-Signature`:
 *
 *   X-VerifyHub-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 *
 * A receiver recomputes the HMAC over the timestamp, a dot and the raw body bytes, compares it in
 * constant time, and refuses timestamps older than its tolerance (five minutes here) to stop replays.
 */
export const SIGNATURE_HEADER = 'x-verifyhub-signature';

export function signHookPayload(secret: string, body: string | Buffer, timestampSeconds = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/** Checks a delivery the way a receiver should; returns false for a bad, missing or stale signature. */
export function verifyHookSignature(
  secret: string,
  header: string | undefined,
  body: string | Buffer,
  options: { toleranceSeconds?: number; now?: number } = {},
): boolean {
  if (!header) return false;
  const parts = new Map(header.split(',').map((p) => p.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = parts.get('v1');
  if (!Number.isInteger(t) || !given || !/^[a-f0-9]{64}$/.test(given)) return false;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = signHookPayload(secret, body, t).split('v1=')[1]!;
  return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(expected, 'hex'));
}
