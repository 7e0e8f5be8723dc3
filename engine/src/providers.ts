/**
 * Mailbox providers recognised from the MX host names, and how the probe treats each one (engine/README.md
 * "Provider strategies"; the answers each one gives are rows of smtp-reply-rules.ts).
 * - `acceptsAllRcpt`: the provider answers 250 to every RCPT and bounces later (Yahoo, AOL), so a 250
 *   proves nothing: the result is `provider_accepts_all` (risky or unknown, `acceptAllVerdict`), never
 *   safe, and no random probe is spent.
 * - `ownDomains`: the provider's consumer domains, which are known not to be catch-all: no random probe
 *   is spent on them. Custom domains hosted there can be catch-all, so they are still probed.
 */
export type ProviderId = 'google' | 'microsoft' | 'yahoo' | 'apple' | 'protonmail' | 'zoho';

export interface ProviderStrategy {
  id: ProviderId;
  name: string;
  acceptsAllRcpt: boolean;
  ownDomains: readonly string[];
}

const PROVIDERS: { pattern: RegExp; strategy: ProviderStrategy }[] = [
  {
    pattern: /(^|\.)(google\.com|googlemail\.com)$/i,
    strategy: { id: 'google', name: 'Google', acceptsAllRcpt: false, ownDomains: ['gmail.com', 'googlemail.com'] },
  },
  {
    // Exchange Online: <tenant>.mail.protection.outlook.com, the consumer *.olc.protection.outlook.com, and the newer <tenant>.<x>.mx.microsoft.
    pattern: /(^|\.)(protection\.outlook\.com|outlook\.com|hotmail\.com|mx\.microsoft)$/i,
    strategy: { id: 'microsoft', name: 'Microsoft 365 / Outlook', acceptsAllRcpt: false, ownDomains: ['outlook.com', 'hotmail.com', 'live.com', 'msn.com', 'hotmail.co.uk', 'hotmail.fr', 'outlook.fr', 'live.co.uk'] },
  },
  {
    pattern: /(^|\.)(yahoodns\.net|yahoo\.com|aol\.com)$/i,
    strategy: { id: 'yahoo', name: 'Yahoo / AOL', acceptsAllRcpt: true, ownDomains: ['yahoo.com', 'aol.com', 'ymail.com', 'rocketmail.com'] },
  },
  {
    pattern: /(^|\.)(mail\.icloud\.com|icloud\.com|me\.com|apple\.com)$/i,
    strategy: { id: 'apple', name: 'Apple iCloud', acceptsAllRcpt: false, ownDomains: ['icloud.com', 'me.com', 'mac.com'] },
  },
  {
    pattern: /(^|\.)(protonmail\.ch|proton\.me|protonmail\.com)$/i,
    strategy: { id: 'protonmail', name: 'Proton Mail', acceptsAllRcpt: false, ownDomains: ['proton.me', 'protonmail.com', 'protonmail.ch', 'pm.me'] },
  },
  {
    pattern: /(^|\.)(zoho\.(com|eu|in|jp|sa|com\.au|com\.cn)|zohocloud\.ca|zohomail\.com)$/i,
    strategy: { id: 'zoho', name: 'Zoho Mail', acceptsAllRcpt: false, ownDomains: ['zohomail.com', 'zoho.com'] },
  },
];

export function detectProvider(mxHosts: string[]): ProviderStrategy | null {
  for (const host of mxHosts) {
    const h = host.replace(/\.$/, '');
    for (const p of PROVIDERS) if (p.pattern.test(h)) return p.strategy;
  }
  return null;
}

/** Whether a random-address probe can tell anything at this domain (not for accept-all providers nor their own consumer domains). */
export function catchAllProbeWorthIt(strategy: ProviderStrategy | null, domain: string): boolean {
  if (!strategy) return true;
  return !strategy.acceptsAllRcpt && !strategy.ownDomains.includes(domain);
}
