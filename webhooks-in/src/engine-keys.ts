/**
 * The engine's API keys and usage as the hub's "API keys" page sees them. The hub never imports the
 * engine (DESIGN.md §3): `verify-hub serve` builds an `EngineKeyAdmin` from the engine's key store when
 * the engine keeps its keys in the hub's Redis (the local engine, or a self-hosted one sharing it).
 */
export interface EngineKeyView {
  id: string;
  name: string;
  /** The key's prefix and first characters (never enough to use it). */
  display: string;
  createdAt: string;
  /** To the minute; null when never used. */
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** The account's month: the figures of the engine's `X-RateLimit-Limit` and `X-Quota-*` headers. */
export interface EngineUsageView {
  account: string;
  ratePerSecond: number;
  monthlyQuota: number;
  /** Billable verifications this month. */
  used: number;
  remaining: number;
  /** When the quota resets (epoch ms; the first instant of next month, UTC). */
  resetsAt: number;
}

export interface EngineKeyAdmin {
  list(): Promise<EngineKeyView[]>;
  /** The full key is in this answer only; the engine keeps its hash. Throws InputError('name') for a bad name. */
  create(name: string): Promise<{ key: string; record: EngineKeyView }>;
  /** Revoked at once for every engine server sharing the store; null for an unknown id. */
  revoke(id: string): Promise<EngineKeyView | null>;
  usage(): Promise<EngineUsageView>;
}

/** What the hub knows about the engine's keys: managed here, or where they are managed instead. */
export type EngineKeysSetting = { admin: EngineKeyAdmin } | { elsewhere: string };
