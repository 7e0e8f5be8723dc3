import { normalizeEmail, type Connector, type Scope, type VerificationCache } from '@verify-hub/core';
import type { RunEstimate } from './contracts';

/**
 * What reading `scope` would cost now: its contacts, their distinct addresses (normalised; those that
 * can never be addresses are rejected locally and cost nothing), those fresh in `cache` (free), and
 * the rest: the credits at most, since the engine does not bill unknown results. Reads the whole
 * source. The pipeline's `estimate` and `verify-hub clean` both use it. `onRepeat` hears an address
 * each time it is met again: what a run's cache must remember for it.
 */
export async function estimateSource(connector: Pick<Connector, 'pull'>, scope: Scope, cache: Pick<VerificationCache, 'getMany'>, onRepeat?: (normalized: string) => void): Promise<RunEstimate> {
  const seen = new Set<string>();
  let contacts = 0;
  let cached = 0;
  let cursor: string | undefined;
  do {
    const page = await connector.pull(scope, cursor);
    contacts += page.contacts.length;
    const fresh: string[] = [];
    for (const c of page.contacts) {
      const n = normalizeEmail(c.email);
      if (!n.ok) continue;
      if (!seen.has(n.normalized)) {
        seen.add(n.normalized);
        fresh.push(n.normalized);
      } else {
        onRepeat?.(n.normalized);
      }
    }
    cached += (await cache.getMany(fresh)).size;
    cursor = page.next;
  } while (cursor !== undefined);
  return { contacts, unique: seen.size, cached, estimatedCredits: seen.size - cached };
}
