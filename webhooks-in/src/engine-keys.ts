/**
 * The engine's API keys and usage as the hub's "API keys" page sees them. The hub never imports the
 * engine (DESIGN.md §3): `verify-hub serve` builds an `EngineKeyAdmin` from the engine's key store when
 * the engine keeps its keys in the hub's Redis (the local engine, or a self-hosted one sharing it).
 */
import type { EngineAccountUsage, EngineKeyView } from '@verify-hub/core';

// A key as the page lists it, and the account's month: core's shapes, shared with the engine's key store.
export type { EngineKeyView };
export type EngineUsageView = EngineAccountUsage;

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
