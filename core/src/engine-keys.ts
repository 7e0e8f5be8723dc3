/**
 * An engine API key's record and an account's month, as the engine's key store keeps them and the
 * hub's "API keys" page shows them: one shape for both (the hub never imports the engine).
 */
export interface EngineKeyRecord {
  id: string;
  account: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
  /** The prefix and first characters, for telling keys apart in a list (never enough to use the key). */
  display: string;
  /** When a request last authenticated with it (to the minute); null if never. */
  lastUsedAt: string | null;
}

/** A key as the hub lists it: its account is the page's, so it is left out. */
export type EngineKeyView = Omit<EngineKeyRecord, 'account'>;

/** An account's standing this month: the figures of the engine's `X-RateLimit-Limit` and `X-Quota-*` headers. */
export interface EngineAccountUsage {
  account: string;
  ratePerSecond: number;
  monthlyQuota: number;
  /** Billable verifications this month (unknown results are never billed). */
  used: number;
  remaining: number;
  /** When the quota resets: the first instant of next month, UTC (epoch ms). */
  resetsAt: number;
}

/** A key record from its stored string fields (a Redis hash: empty string for "not yet"); null when there is none. */
export function parseEngineKeyRecord(fields: Record<string, string>): EngineKeyRecord | null {
  if (!fields.id) return null;
  return {
    id: fields.id,
    account: fields.account ?? '',
    name: fields.name ?? '',
    createdAt: fields.createdAt ?? '',
    revokedAt: fields.revokedAt || null,
    display: fields.display ?? '',
    lastUsedAt: fields.lastUsedAt || null,
  };
}

export function engineKeyView({ account: _account, ...view }: EngineKeyRecord): EngineKeyView {
  return view;
}
