/**
 * Mailbox providers recognised from the MX host names, and how each one's RCPT answers are read.
 * - `acceptsAllRcpt`: the provider answers 250 to every RCPT and bounces later (Yahoo, AOL), so a 250
 *   proves nothing: the result is catch-all (risky), never safe, and no random probe is spent.
 * - `catchAllProbe`: whether the random-address probe is worth a command (a provider that rejects unknown
 *   users reliably for its own consumer domains can still host catch-all business domains, so it stays on).
 */
export interface ProviderStrategy {
  id: 'google' | 'microsoft' | 'yahoo' | 'apple' | 'protonmail' | 'zoho';
  name: string;
  acceptsAllRcpt: boolean;
  catchAllProbe: boolean;
}

const PROVIDERS: { pattern: RegExp; strategy: ProviderStrategy }[] = [
  { pattern: /(^|\.)(google\.com|googlemail\.com|aspmx\.l\.google\.com)$/i, strategy: { id: 'google', name: 'Google', acceptsAllRcpt: false, catchAllProbe: true } },
  { pattern: /(^|\.)(protection\.outlook\.com|outlook\.com|hotmail\.com)$/i, strategy: { id: 'microsoft', name: 'Microsoft 365 / Outlook', acceptsAllRcpt: false, catchAllProbe: true } },
  { pattern: /(^|\.)(yahoodns\.net|yahoo\.com|aol\.com)$/i, strategy: { id: 'yahoo', name: 'Yahoo', acceptsAllRcpt: true, catchAllProbe: false } },
  { pattern: /(^|\.)(mail\.icloud\.com|icloud\.com|me\.com|apple\.com)$/i, strategy: { id: 'apple', name: 'Apple iCloud', acceptsAllRcpt: false, catchAllProbe: true } },
  { pattern: /(^|\.)(protonmail\.ch|proton\.me|protonmail\.com)$/i, strategy: { id: 'protonmail', name: 'Proton Mail', acceptsAllRcpt: false, catchAllProbe: true } },
  { pattern: /(^|\.)(zoho\.com|zoho\.eu|zoho\.in|zohomail\.com)$/i, strategy: { id: 'zoho', name: 'Zoho Mail', acceptsAllRcpt: false, catchAllProbe: true } },
];

export function detectProvider(mxHosts: string[]): ProviderStrategy | null {
  for (const host of mxHosts) {
    const h = host.replace(/\.$/, '');
    for (const p of PROVIDERS) if (p.pattern.test(h)) return p.strategy;
  }
  return null;
}
