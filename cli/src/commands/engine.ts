import type { Command } from 'commander';
import { ConfigError, createLogger, loadConfig, type Config } from '@verify-hub/core';
import type { KeyStore } from '@verify-hub/engine';
import { untilSignal } from '../until-signal';

// @verify-hub/engine is loaded when a command runs (or its help is shown), so that `verify-hub --help` stays quick.
const loadEngine = (): typeof import('@verify-hub/engine') => require('@verify-hub/engine') as typeof import('@verify-hub/engine');

/**
 * `verify-hub engine [--port N] [--host H]` serves the local engine's HTTP API (engine/README.md);
 * `verify-hub engine keys create|list|revoke` manages its API keys. Keys and accounts live in Redis
 * (REDIS_URL, under ENGINE_REDIS_PREFIX), so a key revoked here is refused by every running server at once.
 * A key set in ENGINE_API_KEY is registered at start-up too (a compose file can share one secret between
 * the hub and its engine).
 */
function parseWholeNumber(flag: string, text: string, min: number, max = 65535): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(flag, `must be a whole number from ${min} to ${max}`);
  return n;
}

async function withStore<T>(config: Config, run: (store: KeyStore) => Promise<T>): Promise<T> {
  const opened = await loadEngine().openKeyStore(config.REDIS_URL, config.ENGINE_REDIS_PREFIX).catch(() => {
    throw new ConfigError('REDIS_URL', 'Redis does not answer: the engine keeps its keys and accounts there');
  });
  try {
    return await run(opened.store);
  } finally {
    await opened.close();
  }
}

export function register(program: Command): void {
  const engine = program
    .command('engine')
    .description('Serve the local verification engine over HTTP (GET /api/v1/verify with X-API-Key)')
    .option('--port <n>', 'port to listen on (default: ENGINE_PORT, 8081)')
    .option('--host <address>', 'address to listen on (default: ENGINE_HOST, 127.0.0.1)')
    .action(async (opts: { port?: string; host?: string }) => {
      const config = loadConfig(process.env);
      const log = createLogger({ level: config.LOG_LEVEL });
      const { engineOptionsFromConfig, startEngineServer } = loadEngine();
      const server = await startEngineServer({
        port: opts.port === undefined ? config.ENGINE_PORT : parseWholeNumber('--port', opts.port, 0),
        host: opts.host ?? config.ENGINE_HOST,
        redisUrl: config.REDIS_URL,
        keyPrefix: config.ENGINE_REDIS_PREFIX,
        bootstrapKey: config.ENGINE_API_KEY,
        engine: engineOptionsFromConfig(config),
        logger: log,
      });
      log.info({ url: server.url }, 'engine API listening; create a key with `verify-hub engine keys create --name <name>`');
      if (!config.ENGINE_HELO_NAME && !config.ENGINE_MAIL_FROM) {
        log.warn('ENGINE_HELO_NAME and ENGINE_MAIL_FROM are not set: the probe introduces itself as this host; set them to a domain you own (with reverse DNS to this IP), or big providers refuse it (smtp_policy_block)');
      }
      await untilSignal(() => server.close());
    });

  engine
    .command('lists')
    .description("Print each list the engine uses: its source package, version and size (and the operator's own lists)")
    .option('--json', 'as JSON')
    .action((opts: { json?: boolean }) => {
      const config = loadConfig(process.env);
      const { domainListsInfo, roleListInfo, engineOptionsFromConfig } = loadEngine();
      const options = engineOptionsFromConfig(config);
      const rows = [
        ...domainListsInfo(),
        roleListInfo(),
        { list: 'operator allow', source: 'ENGINE_ALLOW_DOMAINS', version: '-', size: options.allowDomains?.length ?? 0 },
        { list: 'operator deny', source: 'ENGINE_DENY_DOMAINS', version: '-', size: options.denyDomains?.length ?? 0 },
      ];
      if (opts.json) return void process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      const width = (key: 'list' | 'source' | 'version') => Math.max(key.length, ...rows.map((r) => r[key].length));
      const line = (l: string, s: string, v: string, n: string) => `${l.padEnd(width('list'))}  ${s.padEnd(width('source'))}  ${v.padEnd(width('version'))}  ${n}\n`;
      process.stdout.write(line('list', 'source', 'version', 'size') + rows.map((r) => line(r.list, r.source, r.version, String(r.size))).join(''));
    });

  const keys = engine.command('keys').description('Manage the engine API keys (stored in Redis as SHA-256 hashes)');

  keys
    .command('create')
    .description('Create a key; it is printed once and cannot be shown again')
    .requiredOption('--name <name>', 'what the key is for, e.g. "HubSpot sync"')
    .option('--account <account>', 'account whose rate limit and quota the key shares', 'default')
    .option('--rate <n>', 'requests per second for the account (default for a new account: see below)')
    .option('--quota <n>', 'billable verifications per month for the account (default for a new account: see below)')
    .addHelpText('after', () => {
      const { DEFAULT_LIMITS } = loadEngine();
      return `\nA new account's defaults: --rate ${DEFAULT_LIMITS.ratePerSecond}, --quota ${DEFAULT_LIMITS.monthlyQuota}.`;
    })
    .option('--prefix <prefix>', 'key prefix', 'vh')
    .action(async (opts: { name: string; account: string; rate?: string; quota?: string; prefix: string }) => {
      const config = loadConfig(process.env);
      await withStore(config, async (store) => {
        const { key, record } = await store.createKey({ name: opts.name, account: opts.account, keyPrefix: opts.prefix });
        const limits = await store.setAccountLimits(record.account, {
          ratePerSecond: opts.rate === undefined ? undefined : parseWholeNumber('--rate', opts.rate, 1, 100_000),
          monthlyQuota: opts.quota === undefined ? undefined : parseWholeNumber('--quota', opts.quota, 0, 1_000_000_000),
        });
        process.stdout.write(
          `${key}\n\nKey "${record.name}" (id ${record.id}) for account "${record.account}": ${limits.ratePerSecond} requests/s, ${limits.monthlyQuota} verifications/month.\n` +
            'This is the only time the key is shown: store it now (for the hub, as ENGINE_API_KEY).\n',
        );
      });
    });

  keys
    .command('list')
    .description('List keys (never the keys themselves), with their last use (to the minute)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const config = loadConfig(process.env);
      await withStore(config, async (store) => {
        const records = await store.listKeys();
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
          return;
        }
        if (records.length === 0) {
          process.stdout.write('No keys yet: create one with `verify-hub engine keys create --name <name>`.\n');
          return;
        }
        for (const r of records) {
          const lastUsed = `used ${r.lastUsedAt ?? 'never'}`;
          process.stdout.write(`${r.id}  ${r.display.padEnd(10)}  ${r.account.padEnd(12)}  ${r.revokedAt ? `revoked ${r.revokedAt}` : 'active'.padEnd(32)}  ${lastUsed.padEnd(29)}  ${r.name}\n`);
        }
      });
    });

  keys
    .command('revoke')
    .description('Revoke a key by id; every server refuses it from its next request')
    .argument('<id>', 'the key id shown by `keys list`')
    .action(async (id: string) => {
      const config = loadConfig(process.env);
      await withStore(config, async (store) => {
        const record = await store.revokeKey(id);
        if (!record) throw new ConfigError('id', `no key with id ${id}`);
        process.stdout.write(`Revoked "${record.name}" (${record.display}) at ${record.revokedAt}.\n`);
      });
    });
}
