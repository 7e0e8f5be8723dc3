import { readFileSync } from 'node:fs';
import spellChecker from '@zootools/email-spell-checker';

/**
 * Domain lists come from maintained packages, loaded on first use (so constructing an engine stays
 * cheap) and kept for the life of the process:
 * - disposable: `disposable-email-domains` (exact domains, plus its wildcard list matching any subdomain);
 * - free providers: `@activeprospect/freemail`'s free.txt (its disposable entries are not counted as free);
 * - typo suggestions: `@zootools/email-spell-checker` (popular provider domains and TLDs).
 */
let disposable: Set<string> | undefined;
let disposableWildcards: Set<string> | undefined;
let free: Set<string> | undefined;

/** Free providers the freemail list lacks (checked against the providers' sign-up pages). */
const EXTRA_FREE = ['protonmail.com', 'protonmail.ch', 'proton.me', 'pm.me', 'tutanota.com', 'tuta.io', 'hey.com'];

function loadLists(): void {
  if (disposable) return;
  disposable = new Set(require('disposable-email-domains') as string[]);
  disposableWildcards = new Set(require('disposable-email-domains/wildcard.json') as string[]);
  const freeText = readFileSync(require.resolve('@activeprospect/freemail/data/free.txt'), 'utf8');
  free = new Set([...freeText.split(/\r?\n/).map((l) => l.trim().toLowerCase()).filter((l) => l && !l.startsWith('#')), ...EXTRA_FREE]);
}

/** The domain and each parent domain above it: a.b.c.com -> a.b.c.com, b.c.com, c.com. */
function selfAndParents(domain: string): string[] {
  const labels = domain.split('.');
  const out: string[] = [];
  for (let i = 0; i < labels.length - 1; i++) out.push(labels.slice(i).join('.'));
  return out;
}

export function isDisposableDomain(domain: string): boolean {
  loadLists();
  if (disposable!.has(domain)) return true;
  return selfAndParents(domain).some((d) => disposableWildcards!.has(d));
}

export function isFreeProviderDomain(domain: string): boolean {
  loadLists();
  return free!.has(domain) && !isDisposableDomain(domain);
}

/**
 * A likely intended domain when this one looks like a misspelt popular provider (gmial.com -> gmail.com),
 * else null. The spell checker's suggestion is kept only one edit away (a substitution, insertion,
 * deletion or swap of neighbours), so real domains that merely resemble a provider are left alone.
 */
export function typoSuggestion(domain: string): string | null {
  loadLists();
  if (free!.has(domain) || isDisposableDomain(domain)) return null;
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
