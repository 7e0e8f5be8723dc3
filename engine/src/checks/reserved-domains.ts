/**
 * Domains that can never receive mail, known without asking DNS (RFC 2606 and RFC 6761):
 * example.com, example.net, example.org and their subdomains, and every name under the reserved
 * top-level domains .test, .example, .invalid and .localhost. An address there is `invalid` with
 * reason `reserved_domain`, with no network traffic at all.
 */
const RESERVED_SECOND_LEVEL = ['example.com', 'example.net', 'example.org'];
const RESERVED_TLDS = ['test', 'example', 'invalid', 'localhost'];

export function isReservedDomain(domain: string): boolean {
  const d = domain.toLowerCase().replace(/\.$/, '');
  const tld = d.slice(d.lastIndexOf('.') + 1);
  if (RESERVED_TLDS.includes(tld)) return true;
  return RESERVED_SECOND_LEVEL.some((r) => d === r || d.endsWith(`.${r}`));
}
