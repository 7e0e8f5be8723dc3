import { createHash } from 'node:crypto';
import { z } from 'zod';
import { InputError, validSettings, type ConnectionRecord } from '@verify-hub/core';
import { DEFAULT_MAILCHIMP_NAMES, type MailchimpNames } from './merge-field-mapping';

/**
 * What a Mailchimp connection record holds, validated. Credentials are either an API key (its data
 * center is the suffix after the last `-`, as in `0123...-us21`) or an OAuth token with the data
 * center from the metadata call. Messages name the field, never its value.
 */
export type MailchimpAuth = { kind: 'apiKey'; apiKey: string; dc: string } | { kind: 'oauth'; accessToken: string; dc: string };

const DC = /^[a-z]+[0-9]+$/;

export function dataCenterFromApiKey(apiKey: string): string {
  const dash = apiKey.lastIndexOf('-');
  const dc = dash < 0 ? '' : apiKey.slice(dash + 1);
  if (!DC.test(dc)) throw new InputError('credentials.apiKey', 'must end with the data center, like -us21 (as Mailchimp shows the key)');
  return dc;
}

export function readAuth(credentials: ConnectionRecord['credentials']): MailchimpAuth {
  const apiKey = credentials.apiKey;
  const accessToken = credentials.accessToken;
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return { kind: 'apiKey', apiKey: apiKey.trim(), dc: dataCenterFromApiKey(apiKey.trim()) };
  if (typeof accessToken === 'string' && accessToken.trim() !== '') {
    const dc = credentials.dc;
    if (typeof dc !== 'string' || !DC.test(dc)) throw new InputError('credentials.dc', 'must be the data center from the OAuth metadata call (like us21)');
    return { kind: 'oauth', accessToken: accessToken.trim(), dc };
  }
  throw new InputError('credentials', 'needs apiKey, or accessToken with dc');
}

/** The shared limiter key: data center plus a hash of the key, never the key itself. */
export function limiterKey(auth: MailchimpAuth): string {
  const secret = auth.kind === 'apiKey' ? auth.apiKey : auth.accessToken;
  return `mailchimp:${auth.dc}:${createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 16)}`;
}

/** Mailchimp merge tags: up to 10 characters, upper-case letters, digits and underscores. */
const MergeTag = z.string().regex(/^[A-Z][A-Z0-9_]{0,9}$/, 'must be a merge tag: 1-10 of A-Z, 0-9, _ starting with a letter');

const url = z.string().refine((v) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

export const MailchimpSettingsSchema = z.object({
  /** The audience the connection works on when a scope names none (`all`, `changed-since:...`). */
  listId: z.string().min(1).optional(),
  names: z
    .object({
      riskMergeField: MergeTag.optional(),
      scoreMergeField: MergeTag.optional(),
      dateMergeField: MergeTag.optional(),
      tagPrefix: z.string().min(1).max(40).optional(),
    })
    .optional(),
  /** API base, default `https://<dc>.api.mailchimp.com/3.0` (tests and proxies point it elsewhere). */
  apiBase: url.optional(),
  /** Per-request timeout; Mailchimp itself gives up after 120 s. */
  timeoutMs: z.number().int().positive().optional(),
  /** Writes touching at most this many members use direct calls; more go through `/batches`. */
  smallWriteLimit: z.number().int().min(0).max(500).optional(),
  /** Minutes of overlap subtracted from a `changed-since` time (clock skew, in-flight edits). */
  changedSinceOverlapMinutes: z.number().min(0).max(24 * 60).optional(),
  retry: z.object({ attempts: z.number().int().min(1).max(20), baseMs: z.number().min(0), maxMs: z.number().min(0) }).partial().optional(),
  batchPolling: z.object({ initialMs: z.number().min(1), maxMs: z.number().min(1), timeoutMs: z.number().min(1) }).partial().optional(),
});

export type MailchimpSettings = z.infer<typeof MailchimpSettingsSchema>;

export interface ResolvedSettings {
  listId?: string;
  names: MailchimpNames;
  apiBase: string;
  timeoutMs: number;
  smallWriteLimit: number;
  changedSinceOverlapMs: number;
  retry: { attempts: number; baseMs: number; maxMs: number };
  batchPolling: { initialMs: number; maxMs: number; timeoutMs: number };
}

/** A connection's settings with their defaults: as the host validated them (`ConnectorDeps.settings`), or validated here without a host. */
export function readSettings(settings: ConnectionRecord['settings'], auth: MailchimpAuth, validated?: MailchimpSettings): ResolvedSettings {
  const s = validated ?? validSettings(MailchimpSettingsSchema, settings);
  return {
    listId: s.listId,
    names: { ...DEFAULT_MAILCHIMP_NAMES, ...stripUndefined(s.names ?? {}) },
    apiBase: (s.apiBase ?? `https://${auth.dc}.api.mailchimp.com/3.0`).replace(/\/+$/, ''),
    timeoutMs: s.timeoutMs ?? 120_000,
    smallWriteLimit: s.smallWriteLimit ?? 10,
    changedSinceOverlapMs: (s.changedSinceOverlapMinutes ?? 5) * 60_000,
    retry: { attempts: 5, baseMs: 500, maxMs: 30_000, ...stripUndefined(s.retry ?? {}) },
    batchPolling: { initialMs: 1_000, maxMs: 15_000, timeoutMs: 30 * 60_000, ...stripUndefined(s.batchPolling ?? {}) },
  };
}

function stripUndefined<T extends object>(o: T): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<{ [K in keyof T]: Exclude<T[K], undefined> }>;
}
