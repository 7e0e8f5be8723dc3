import { createLocalLimiter, VerificationSchema, type ContactResult, type WriteOptions, type WriteReport, type ConnectionRecord, type ConnectorDeps, type LimiterSpec, type Verification } from '@verify-hub/core';
import { HubSpotConnector, hubspotPlatform, type HubSpotConnectorOptions } from '@verify-hub/connector-hubspot';
import { writeInBatches } from '@verify-hub/sync-jobs';
import type { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';

/** Core's in-process limiters, one per key (the Redis-backed ones come from sync-jobs); specs are recorded. */
export function localDeps(options: { scale?: number; saved?: ConnectionRecord['credentials'][] } = {}): ConnectorDeps & { specs: LimiterSpec[] } {
  const specs: LimiterSpec[] = [];
  const limiters = new Map<string, ReturnType<typeof createLocalLimiter>>();
  return {
    specs,
    limiter(spec) {
      specs.push(spec);
      let limiter = limiters.get(spec.key);
      if (!limiter) {
        // `scale` shortens windows so tests at the real counts stay fast.
        const per = spec.perInterval && { count: spec.perInterval.count, intervalMs: Math.max(1, Math.round(spec.perInterval.intervalMs * (options.scale ?? 1))) };
        limiter = createLocalLimiter({ ...spec, perInterval: per });
        limiters.set(spec.key, limiter);
      }
      return limiter;
    },
    async saveCredentials(credentials) {
      options.saved?.push(credentials);
    },
  };
}

export const noWait: HubSpotConnectorOptions['retry'] = { sleep: async () => undefined, backoff: { baseMs: 1, maxMs: 2 } };

export function privateConnection(fake: FakeHubSpot, portalId: string, token: string, settings: Record<string, unknown> = {}): ConnectionRecord {
  return {
    id: `hubspot-${portalId}`, platform: 'hubspot', label: `portal ${portalId}`, createdAt: new Date().toISOString(),
    credentials: { accessToken: token }, settings: { apiBase: fake.url, ...settings },
  };
}

export function connector(fake: FakeHubSpot, portalId: string, token: string, opts: { settings?: Record<string, unknown>; deps?: ConnectorDeps; options?: HubSpotConnectorOptions } = {}): HubSpotConnector {
  return new HubSpotConnector(privateConnection(fake, portalId, token, opts.settings), opts.deps ?? localDeps({ scale: 0.001 }), { retry: noWait, ...opts.options });
}

export function verification(email: string, over: Partial<Verification> = {}): Verification {
  return VerificationSchema.parse({
    email, normalized: email, score: 91, risk: 'safe', reason: 'deliverable',
    checks: { syntax: true, mx: true, smtp: true, smtpCheck: 'deliverable', disposable: false, roleAccount: false, catchAll: false, freeProvider: true, spamTrapRisk: 'none' },
    checkedAt: '2026-11-20T08:30:00.000Z', billable: true, ...over,
  });
}

/** Writes as the pipeline does: in the module's batches (`writeBatchSize`), a batch tried once more. */
export function hostWrite(hub: HubSpotConnector, results: ContactResult[], options: WriteOptions = {}): Promise<WriteReport> {
  return writeInBatches(hub, results, options, { writeBatchSize: hubspotPlatform.writeBatchSize, transientRetryMs: 1 });
}

/** Pages a scope to its end, as the sync pipeline's `runs` job does. */
export async function drain(hub: { pull(scope: import('@verify-hub/core').Scope, cursor?: string): Promise<import('@verify-hub/core').Page> }, scope: string, maxPages = 10_000) {
  const { parseScope } = await import('@verify-hub/core');
  const contacts: import('@verify-hub/core').Contact[] = [];
  const skipped: Record<string, number> = {};
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await hub.pull(parseScope(scope), cursor);
    pages++;
    contacts.push(...page.contacts);
    for (const [k, n] of Object.entries(page.skipped ?? {})) skipped[k] = (skipped[k] ?? 0) + n;
    cursor = page.next;
  } while (cursor !== undefined && pages < maxPages);
  return { contacts, skipped, pages };
}
