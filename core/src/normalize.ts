import { domainToASCII } from 'node:url';

/** RFC 5321 limits: 64 octets of local part, 255 of domain, 254 for the whole path. */
export const MAX_LOCAL_PART = 64;
export const MAX_DOMAIN = 255;
export const MAX_ADDRESS = 254;

export type NormalizeResult =
  | { ok: true; normalized: string; localPart: string; domain: string }
  | { ok: false; reason: 'syntax'; problem: string };

/**
 * Trims, lower-cases the domain and converts an IDN domain to ASCII (punycode). The local part keeps
 * its case: RFC 5321 says it may be case-sensitive. Rejects only what can never be an address, so the
 * engine (which checks syntax fully) is not paid for those.
 */
export function normalizeEmail(input: unknown): NormalizeResult {
  if (typeof input !== 'string') return { ok: false, reason: 'syntax', problem: 'not a string' };
  const trimmed = input.trim();
  if (trimmed === '') return { ok: false, reason: 'syntax', problem: 'empty' };
  const at = trimmed.lastIndexOf('@');
  if (at < 0) return { ok: false, reason: 'syntax', problem: 'no @' };
  const localPart = trimmed.slice(0, at);
  const rawDomain = trimmed.slice(at + 1);
  if (localPart === '') return { ok: false, reason: 'syntax', problem: 'empty local part' };
  if (rawDomain === '') return { ok: false, reason: 'syntax', problem: 'empty domain' };
  if (/\s/.test(rawDomain)) return { ok: false, reason: 'syntax', problem: 'space in domain' };
  if (localPart.length > MAX_LOCAL_PART) return { ok: false, reason: 'syntax', problem: `local part over ${MAX_LOCAL_PART} characters` };
  let domain: string;
  if (rawDomain.startsWith('[') && rawDomain.endsWith(']')) {
    domain = rawDomain.toLowerCase(); // address literal: nothing to convert
  } else {
    domain = domainToASCII(rawDomain.toLowerCase());
    if (domain === '') return { ok: false, reason: 'syntax', problem: 'domain is not a valid host name' };
  }
  if (domain.length > MAX_DOMAIN) return { ok: false, reason: 'syntax', problem: `domain over ${MAX_DOMAIN} characters` };
  const normalized = `${localPart}@${domain}`;
  if (normalized.length > MAX_ADDRESS) return { ok: false, reason: 'syntax', problem: `address over ${MAX_ADDRESS} characters` };
  return { ok: true, normalized, localPart, domain };
}
