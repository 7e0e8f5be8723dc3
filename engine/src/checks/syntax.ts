import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';
import { parse as parseSmtpAddress } from 'smtp-address-parser';
import { MAX_ADDRESS, MAX_LOCAL_PART } from '@verify-hub/core';

export type SyntaxResult =
  | {
      ok: true;
      /** The local part as written (quotes kept). */
      localPart: string;
      /** Lower-cased; IDN converted to ASCII (punycode); an address literal keeps its brackets. */
      domain: string;
      quoted: boolean;
      ipLiteral: boolean;
      idn: boolean;
    }
  | { ok: false; problem: string };

/** True when a `(` or `)` appears outside a quoted string: an RFC 5322 comment. */
function hasComment(address: string): boolean {
  let quoted = false;
  for (let i = 0; i < address.length; i++) {
    const c = address[i];
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '(' || c === ')')) return true;
  }
  return false;
}

/**
 * Characters that are not safe in a mailbox name: controls, format characters (zero-width joiners and
 * spaces, bidi overrides and isolates, the BOM, soft hyphen), unpaired surrogates, private-use and
 * unassigned code points. They make two addresses look alike or reorder what a person reads.
 */
const UNSAFE_UNICODE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}]/u;

/** A host name after IDNA mapping: letters, digits and inner hyphens per label (RFC 5890 A-labels included). */
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** An address literal's content: an IPv4 dotted quad or `IPv6:` and an IPv6 address (RFC 5321 §4.1.3). */
function validAddressLiteral(literal: string): boolean {
  const inner = literal.slice(1, -1);
  if (/^ipv6:/i.test(inner)) return isIPv6(inner.slice(5));
  return isIPv4(inner);
}

/**
 * Checks the address as an SMTP mailbox (RFC 5321 `Mailbox`, with RFC 6531 UTF-8): dot-atom or quoted
 * local part, a fully qualified domain or an address literal, and the length limits (64 octets of local
 * part, 63 per label, 253 of domain, 254 in all). RFC 5322 comments and folding white space are legal in a
 * message header but cannot be given to RCPT TO, so an address that needs them is rejected here.
 */
export function checkSyntax(input: string): SyntaxResult {
  const address = input.trim();
  if (address === '') return { ok: false, problem: 'empty' };
  if (/[\r\n]/.test(address)) return { ok: false, problem: 'line break in address' };
  if (hasComment(address)) return { ok: false, problem: 'comments are not allowed in an SMTP address' };
  let parsed: { localPart: { DotString?: string; QuotedString?: string }; domainPart: { DomainName?: string; AddressLiteral?: string } };
  try {
    parsed = parseSmtpAddress(address) as typeof parsed;
  } catch (error) {
    const lines = String((error as Error).message).split('\n');
    const where = (lines[0] ?? 'not an address').replace(/^Syntax error at line 1 (col \d+):?$/, 'unexpected character at $1');
    const what = lines.find((l) => l.startsWith('Unexpected '))?.split('.')[0];
    return { ok: false, problem: what && where.startsWith('unexpected character') ? `${where} (${what.replace('Unexpected ', '').trim()})` : where };
  }
  const localPart = parsed.localPart.DotString ?? parsed.localPart.QuotedString ?? '';
  if (UNSAFE_UNICODE.test(localPart)) return { ok: false, problem: 'local part has an invisible or unsafe Unicode character' };
  if (Buffer.byteLength(localPart, 'utf8') > MAX_LOCAL_PART) return { ok: false, problem: `local part over ${MAX_LOCAL_PART} octets` };
  if (parsed.domainPart.AddressLiteral !== undefined) {
    const domain = parsed.domainPart.AddressLiteral.toLowerCase();
    if (!validAddressLiteral(domain)) return { ok: false, problem: 'address literal is not a valid IPv4 or IPv6 address' };
    return { ok: true, localPart, domain, quoted: parsed.localPart.QuotedString !== undefined, ipLiteral: true, idn: false };
  }
  const unicodeDomain = (parsed.domainPart.DomainName ?? '').toLowerCase();
  if (UNSAFE_UNICODE.test(unicodeDomain)) return { ok: false, problem: 'domain has an invisible or unsafe Unicode character' };
  const domain = domainToASCII(unicodeDomain);
  if (domain === '') return { ok: false, problem: 'domain is not a valid host name' };
  // IDNA mapping can turn a name that parsed into one that is not a host name (full-width dots, underscores): check again.
  const labels = domain.split('.');
  if (labels.length < 2 || labels.some((label) => !LDH_LABEL.test(label))) return { ok: false, problem: 'domain is not a valid host name after IDNA mapping' };
  if (domain.length > 253) return { ok: false, problem: 'domain over 253 octets' };
  if (domain.split('.').some((label) => label.length > 63)) return { ok: false, problem: 'domain label over 63 octets' };
  if (/^\d+$/.test(domain.slice(domain.lastIndexOf('.') + 1))) return { ok: false, problem: 'top-level domain is numeric' };
  if (Buffer.byteLength(localPart, 'utf8') + 1 + domain.length > MAX_ADDRESS) return { ok: false, problem: `address over ${MAX_ADDRESS} octets` };
  return { ok: true, localPart, domain, quoted: parsed.localPart.QuotedString !== undefined, ipLiteral: false, idn: domain !== unicodeDomain };
}
