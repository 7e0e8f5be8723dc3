import { domainToASCII } from 'node:url';

/** RFC 5321 limits: 64 octets of local part, 255 of domain, 254 for the whole path, 63 per domain label. */
export const MAX_LOCAL_PART = 64;
export const MAX_DOMAIN = 255;
export const MAX_ADDRESS = 254;
export const MAX_LABEL = 63;

export type NormalizeResult =
  | { ok: true; normalized: string; localPart: string; domain: string }
  | { ok: false; reason: 'syntax'; problem: string };

/**
 * Characters no address may hold, quoted or not: control characters (NUL, CR, LF, ...), format
 * characters (bidi overrides such as U+202E, zero-width spaces and joiners, a BOM inside), unpaired
 * surrogates, private-use characters, line and paragraph separators, and U+FFFD (what a decoder
 * puts where bytes were broken: the address as typed is lost). They hide what an address is
 * (U+202E shows it backwards) or break the logs and files it goes to.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Zl}\p{Zp}\uFFFD]/u;

/**
 * Outside quotes, a local part is dot-separated atoms (RFC 5322 `dot-atom`): space and these
 * specials never appear in one. Finding them means a display name, a list of addresses in one cell
 * (`a@x.com, b@y.com`), or a stray `@`.
 */
const NOT_IN_ATOM = /[\s()<>[\]:;@\\,"]/;

const fail = (problem: string): NormalizeResult => ({ ok: false, reason: 'syntax', problem });

/** Why a local part (as typed) can never be one, or undefined. A quoted local part is left to the engine. */
function localPartProblem(local: string): string | undefined {
  if (local === '') return 'empty local part';
  if (local.length > MAX_LOCAL_PART) return `local part over ${MAX_LOCAL_PART} characters`;
  if (local.length >= 2 && local.startsWith('"') && local.endsWith('"')) return undefined;
  if (/[\s,;]/.test(local)) return local.includes('@') ? 'several addresses in one cell' : 'a space, comma or semicolon in the address';
  if (local.includes('@')) return 'more than one @';
  if (NOT_IN_ATOM.test(local)) return 'a character that is not allowed outside quotes';
  if (local.startsWith('.') || local.endsWith('.')) return 'local part starts or ends with a dot';
  if (local.includes('..')) return 'two dots in a row in the local part';
  return undefined;
}

/** A dot at either end or two in a row: an empty label. */
const hasEmptyLabel = (domain: string) => domain.startsWith('.') || domain.endsWith('.') || domain.includes('..');

/** Every label letters, digits and inner hyphens (RFC 5321), checked over the whole name at once. */
const LDH_LABELS = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/** Whether a label is longer than MAX_LABEL, found by the dots' positions (no array per address). */
function hasLongLabel(domain: string): boolean {
  let start = 0;
  for (let dot = domain.indexOf('.'); dot >= 0; dot = domain.indexOf('.', start)) {
    if (dot - start > MAX_LABEL) return true;
    start = dot + 1;
  }
  return domain.length - start > MAX_LABEL;
}

/**
 * Why an ASCII host name can never be a mail domain (RFC 5321 labels: letters, digits, inner hyphens),
 * or undefined. Written without splitting into labels: every address of every page passes here,
 * several times a row, and a split with a test per label was a third of what it allocated.
 */
function domainProblem(domain: string): string | undefined {
  if (hasEmptyLabel(domain)) return 'empty label in the domain (a dot at an end, or two in a row)';
  if (hasLongLabel(domain)) return `domain label over ${MAX_LABEL} characters`;
  if (!LDH_LABELS.test(domain)) return 'domain label with a character other than letters, digits and inner hyphens';
  return undefined;
}

/**
 * Trims, lower-cases the domain and converts an IDN domain to ASCII (punycode). The local part keeps
 * its case: RFC 5321 says it may be case-sensitive. Rejects only what can never be an address
 * (unsafe characters, several @ or addresses, misplaced dots, empty or over-long labels), so the
 * engine, which checks syntax fully, is not paid for those.
 */
export function normalizeEmail(input: unknown): NormalizeResult {
  if (typeof input !== 'string') return fail('not a string');
  const trimmed = input.trim();
  if (trimmed === '') return fail('empty');
  if (UNSAFE.test(trimmed)) return fail('a control, invisible or direction-changing character');
  const at = trimmed.lastIndexOf('@');
  if (at < 0) return fail('no @');
  const localPart = trimmed.slice(0, at);
  const rawDomain = trimmed.slice(at + 1);
  if (localPart === '') return fail('empty local part');
  if (rawDomain === '') return fail('empty domain');
  if (/\s/.test(rawDomain)) return fail('space in domain');
  const localProblem = localPartProblem(localPart);
  if (localProblem) return fail(localProblem);
  let domain: string;
  if (rawDomain.startsWith('[') && rawDomain.endsWith(']')) {
    domain = rawDomain.toLowerCase(); // address literal: nothing to convert
  } else {
    // Checked before conversion too: an empty label may vanish in it (`example.com.` converts as it is).
    if (hasEmptyLabel(rawDomain)) return fail('empty label in the domain (a dot at an end, or two in a row)');
    domain = domainToASCII(rawDomain.toLowerCase());
    if (domain === '') return fail('domain is not a valid host name');
    if (domain.length > MAX_DOMAIN) return fail(`domain over ${MAX_DOMAIN} characters`);
    const problem = domainProblem(domain);
    if (problem) return fail(problem);
  }
  if (domain.length > MAX_DOMAIN) return fail(`domain over ${MAX_DOMAIN} characters`);
  const normalized = `${localPart}@${domain}`;
  if (normalized.length > MAX_ADDRESS) return fail(`address over ${MAX_ADDRESS} characters`);
  return { ok: true, normalized, localPart, domain };
}
