import { engineKeyView as keyView, type Config } from '@verify-hub/core';
import { KeyStore } from '@verify-hub/engine';
import type { EngineKeyAdmin, EngineKeysSetting } from '@verify-hub/webhooks-in';

/** The Redis client the engine's key store runs on (the hub's own connection). */
type Redis = ConstructorParameters<typeof KeyStore>[0];

/** The account whose keys the hub creates and whose usage it shows when no key tells another. */
const DEFAULT_ACCOUNT = 'default';

/**
 * The hub's "API keys" page over the engine's key store (in `redis`, under ENGINE_REDIS_PREFIX) when
 * the engine keeps its keys there: always for the local engine (no ENGINE_URL: `verify-hub engine`
 * servers on this Redis share its keys), and for an ENGINE_URL whose ENGINE_API_KEY is registered in
 * this store (a self-hosted engine sharing the Redis; the page then works on that key's account).
 * Otherwise the page says where that engine's keys are managed.
 */
export async function engineKeysFromConfig(config: Config, redis: Redis): Promise<EngineKeysSetting> {
  const store = new KeyStore(redis, config.ENGINE_REDIS_PREFIX);
  if (!config.ENGINE_URL) return { admin: keyAdmin(store, DEFAULT_ACCOUNT) };
  const shared = config.ENGINE_API_KEY ? await store.findKey(config.ENGINE_API_KEY).catch(() => null) : null;
  if (shared) return { admin: keyAdmin(store, shared.account) };
  const where = new URL(config.ENGINE_URL).origin;
  return {
    elsewhere: `The engine at ${where} manages its own API keys: create, name and revoke them where that engine is run (its dashboard under API keys, or \`verify-hub engine keys\` on its machine).`,
  };
}

export function keyAdmin(store: KeyStore, account: string): EngineKeyAdmin {
  return {
    list: async () => (await store.listKeys()).filter((r) => r.account === account).map(keyView),
    create: async (name) => {
      const { key, record } = await store.createKey({ name, account });
      return { key, record: keyView(record) };
    },
    revoke: async (id) => {
      const listed = (await store.listKeys()).find((r) => r.id === id && r.account === account);
      const revoked = listed ? await store.revokeKey(id) : null;
      return revoked ? keyView(revoked) : null;
    },
    usage: () => store.accountUsage(account),
  };
}
