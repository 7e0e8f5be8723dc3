import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks the hub's completion-webhook signature (webhooks-in/src/hook-signature.ts):
 *   X-VerifyHub-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 * Constant-time compare; a timestamp further than `toleranceSeconds` from now is refused (replay).
 */
export function isValidHookSignature(secret: string, header: string | undefined, rawBody: string, now = Date.now(), toleranceSeconds = 900): boolean {
  if (!header) return false;
  const parts = new Map(header.split(',').map((p) => p.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = parts.get('v1');
  if (!Number.isInteger(t) || !given || !/^[a-f0-9]{64}$/.test(given)) return false;
  if (Math.abs(Math.floor(now / 1000) - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(given, 'hex'), expected);
}

/** A header from Zapier's raw request, whatever its case (and with Zapier's `Http-` prefix, if any). */
export function headerOf(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    const k = key.toLowerCase().replace(/_/g, '-');
    if (k === wanted || k === `http-${wanted}`) return value;
  }
  return undefined;
}
