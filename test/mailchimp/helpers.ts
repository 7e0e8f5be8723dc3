import { createLocalLimiter, type CallLimiter, type ConnectionRecord, type ConnectorDeps, type ContactResult, type LimiterSpec, type Risk, type Verification, type WriteOptions, type WriteReport } from '@verify-hub/core';
import { MailchimpConnector, mailchimpPlatform } from '@verify-hub/connector-mailchimp';
import { writeInBatches } from '@verify-hub/sync-jobs';
import type { FakeMailchimp } from '../fakes/mailchimp';

/** A limiter factory like the pipeline's: one limiter per key, shared by every connector asking for it. */
export function sharedLocalLimiters(): ConnectorDeps & { specs: LimiterSpec[] } {
  const limiters = new Map<string, CallLimiter>();
  const specs: LimiterSpec[] = [];
  return {
    specs,
    limiter(spec) {
      specs.push(spec);
      if (!limiters.has(spec.key)) limiters.set(spec.key, createLocalLimiter(spec));
      return limiters.get(spec.key)!;
    },
    saveCredentials: async () => undefined,
  };
}

/** A fast-polling, fast-retrying connection against the fake. */
export function connectionFor(fake: FakeMailchimp, credentials: ConnectionRecord['credentials'], settings: Record<string, unknown> = {}): ConnectionRecord {
  return {
    id: `mailchimp-test-${Math.random().toString(16).slice(2)}`,
    platform: 'mailchimp',
    label: 'test',
    createdAt: new Date().toISOString(),
    credentials,
    settings: { apiBase: fake.apiBase, retry: { baseMs: 5, maxMs: 50 }, batchPolling: { initialMs: 10, maxMs: 50, timeoutMs: 60_000 }, ...settings },
  };
}

export function connector(fake: FakeMailchimp, credentials: ConnectionRecord['credentials'], settings: Record<string, unknown> = {}, deps: ConnectorDeps = sharedLocalLimiters()): MailchimpConnector {
  return new MailchimpConnector(connectionFor(fake, credentials, settings), deps);
}

const RISK_ORDER: Risk[] = ['safe', 'risky', 'invalid', 'unknown'];
const SCORES: Record<Risk, number> = { safe: 95, risky: 55, invalid: 2, unknown: 0 };

/** A deterministic risk per address (by its number), so tests know what to expect. */
export function riskOf(email: string, salt = 0): Risk {
  const n = Number(/(\d+)@/.exec(email)?.[1] ?? email.length);
  return RISK_ORDER[(n + salt) % 4]!;
}

export function verification(email: string, risk: Risk, checkedAt = '2026-11-20T10:00:00.000Z'): Verification {
  return {
    email,
    normalized: email.toLowerCase(),
    score: SCORES[risk],
    risk,
    reason: risk === 'invalid' ? 'mailbox_not_found' : risk === 'unknown' ? 'smtp_timeout' : 'deliverable',
    checks: { syntax: true, mx: true, smtp: risk === 'unknown' ? null : risk !== 'invalid', smtpCheck: { safe: 'deliverable', risky: 'deliverable', invalid: 'undeliverable', unknown: 'timeout' }[risk], disposable: false, roleAccount: false, catchAll: false, freeProvider: false, spamTrapRisk: 'none' },
    checkedAt,
    billable: risk !== 'unknown',
  };
}

/** Pulls every page of a scope, like the runs job does. */
export async function pullAll(c: MailchimpConnector, scope: import('@verify-hub/core').Scope) {
  const pages = [];
  let cursor: string | undefined;
  do {
    const page = await c.pull(scope, cursor);
    pages.push(page);
    cursor = page.next;
  } while (cursor);
  return pages;
}

export const EV_TAGS = ['ev-safe', 'ev-risky', 'ev-invalid', 'ev-unknown'];

/** Writes as the pipeline does: in the module's batches (`writeBatchSize`, Mailchimp's 500), a batch tried once more. */
export function hostWrite(c: MailchimpConnector, results: ContactResult[], options: WriteOptions = {}): Promise<WriteReport> {
  return writeInBatches(c, results, options, { writeBatchSize: mailchimpPlatform.writeBatchSize, transientRetryMs: 1 });
}
