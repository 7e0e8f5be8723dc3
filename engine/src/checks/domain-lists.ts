import { readFileSync } from 'node:fs';
import spellChecker from '@zootools/email-spell-checker';

/**
 * Domain lists come from maintained packages (engine/README.md "Lists" says why these), loaded on first
 * use (so constructing an engine stays cheap) and kept for the life of the process:
 * - disposable: `disposable-email-domains-js` (the community blocklist, released as it changes) united with
 *   `disposable-email-domains` (a larger older list, plus its wildcard list matching any subdomain);
 * - free providers: `@activeprospect/freemail`'s free.txt (its disposable entries are not counted as free)
 *   plus the national providers and newer services it lacks;
 * - typo suggestions: `@zootools/email-spell-checker` (popular provider domains and TLDs).
 * The operator's own lists (`ENGINE_ALLOW_DOMAINS`, `ENGINE_DENY_DOMAINS`) are applied on top, per engine.
 */
let disposable: Set<string> | undefined;
let disposableWildcards: Set<string> | undefined;
let free: Set<string> | undefined;

/** Free providers the freemail list lacks (checked against the providers' sign-up pages). */
const EXTRA_FREE = [
  'protonmail.com', 'protonmail.ch', 'proton.me', 'pm.me', 'tutanota.com', 'tuta.io', 'hey.com', 'zohomail.com', 'posteo.de', 'mailbox.org',
  't-online.de', 'o2.pl', 'daum.net', 'abv.bg', 'btinternet.com', 'shaw.ca', 'rogers.com',
];

function packageVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

function loadLists(): void {
  if (disposable) return;
  const community = (require('disposable-email-domains-js') as { disposableEmailBlocklist(): string[] }).disposableEmailBlocklist();
  disposable = new Set([...community, ...(require('disposable-email-domains') as string[])]);
  disposableWildcards = new Set(require('disposable-email-domains/wildcard.json') as string[]);
  const freeText = readFileSync(require.resolve('@activeprospect/freemail/data/free.txt'), 'utf8');
  free = new Set([...freeText.split(/\r?\n/).map((l) => l.trim().toLowerCase()).filter((l) => l && !l.startsWith('#')), ...EXTRA_FREE]);
}

/** Each list the engine uses: where it comes from, which version, how many entries (`verify-hub engine lists`). */
export interface ListInfo {
  list: string;
  source: string;
  version: string;
  size: number;
}

export function domainListsInfo(): ListInfo[] {
  loadLists();
  const community = (require('disposable-email-domains-js') as { disposableEmailBlocklist(): string[] }).disposableEmailBlocklist().length;
  return [
    { list: 'disposable', source: 'disposable-email-domains-js', version: packageVersion('disposable-email-domains-js'), size: community },
    { list: 'disposable', source: 'disposable-email-domains (+ wildcard.json)', version: packageVersion('disposable-email-domains'), size: (require('disposable-email-domains') as string[]).length + disposableWildcards!.size },
    { list: 'disposable (merged)', source: 'both above', version: '-', size: disposable!.size + disposableWildcards!.size },
    { list: 'free provider', source: '@activeprospect/freemail (+ verify-hub additions)', version: packageVersion('@activeprospect/freemail'), size: free!.size },
  ];
}

/** The domain and each parent domain above it: a.b.c.com -> a.b.c.com, b.c.com, c.com. */
function selfAndParents(domain: string): string[] {
  const labels = domain.split('.');
  const out: string[] = [];
  for (let i = 0; i < labels.length - 1; i++) out.push(labels.slice(i).join('.'));
  return out;
}

/** The operator's own domain lists: deny = treated as disposable; allow = never disposable (a list's false positive). */
export interface OperatorDomainLists {
  allow: ReadonlySet<string>;
  deny: ReadonlySet<string>;
}

export const NO_OPERATOR_LISTS: OperatorDomainLists = { allow: new Set(), deny: new Set() };

export function isDisposableDomain(domain: string, operator: OperatorDomainLists = NO_OPERATOR_LISTS): boolean {
  const family = selfAndParents(domain);
  if (family.some((d) => operator.allow.has(d))) return false;
  if (family.some((d) => operator.deny.has(d))) return true;
  loadLists();
  if (disposable!.has(domain)) return true;
  return family.some((d) => disposableWildcards!.has(d));
}

export function isFreeProviderDomain(domain: string, operator: OperatorDomainLists = NO_OPERATOR_LISTS): boolean {
  loadLists();
  return free!.has(domain) && !isDisposableDomain(domain, operator);
}

/**
 * A likely intended domain when this one looks like a misspelt popular provider (gmial.com -> gmail.com),
 * else null. The spell checker's suggestion is kept only one edit away (a substitution, insertion,
 * deletion or swap of neighbours), so real domains that merely resemble a provider are left alone.
 */
export function typoSuggestion(domain: string): string | null {
  loadLists();
  // Disposable lists also hold typo domains (gmial.com): they still get their suggestion.
  if (free!.has(domain)) return null;
  const suggestion = spellChecker.run({ email: `x@${domain}` });
  if (!suggestion || suggestion.domain === domain) return null;
  return editDistance(domain, suggestion.domain) <= 1 ? suggestion.domain : null;
}

/** Optimal-string-alignment distance: Levenshtein plus the swap of two neighbouring characters. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
