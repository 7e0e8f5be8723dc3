// `verify-hub hubspot` commands' work, loaded when one runs (so `--help` loads no platform client).
import { ConfigError, createLocalLimiter, loadConfig, type ConnectionRecord, type ConnectorDeps, type SchemaReport } from '@verify-hub/core';
import { HubSpotConnector, RATE_TIERS, privateAppConnection, type RateTier } from '@verify-hub/connector-hubspot';
import { createRedisLimiterFactory } from '@verify-hub/sync-jobs';
import { EXIT } from '../command';
import { openConnectionStore } from '../stored-connections';
import { hubspotTokenConnection } from '../platform-setup';

export interface SetupOptions {
  connection?: string;
}

export interface ConnectOptions {
  label?: string;
  tier?: RateTier;
}

/** Standalone use (HUBSPOT_ACCESS_TOKEN): in-process limiters, nothing to save. */
const standaloneDeps: ConnectorDeps = {
  limiter: (spec) => createLocalLimiter(spec),
  saveCredentials: async () => undefined,
};

export function printSchemaReport(report: SchemaReport, print: (line: string) => void = console.log): void {
  print(report.created.length ? `created: ${report.created.join(', ')}` : 'created: nothing (everything was already there)');
  if (report.existing.length) print(`already there: ${report.existing.join(', ')}`);
  for (const problem of report.problems) print(`problem: ${problem}`);
}

export async function setup(opts: SetupOptions): Promise<void> {
  const config = loadConfig(process.env);
  let report: SchemaReport;
  if (opts.connection) {
    const { redis, keys, store } = openConnectionStore(config);
    try {
      const record = await store.get(opts.connection);
      if (!record || record.platform !== 'hubspot') throw new ConfigError('--connection', `no HubSpot connection named ${opts.connection}`);
      const deps: ConnectorDeps = {
        limiter: createRedisLimiterFactory(redis, keys),
        saveCredentials: (credentials) => store.saveCredentials(record.id, credentials),
      };
      report = await new HubSpotConnector(record, deps, { env: process.env }).ensureSchema();
    } finally {
      redis.disconnect();
    }
  } else {
    if (!config.HUBSPOT_ACCESS_TOKEN) throw new ConfigError('HUBSPOT_ACCESS_TOKEN', 'is required (a private app token), or pass --connection <id> of a stored connection');
    const record = await privateAppConnection({ accessToken: config.HUBSPOT_ACCESS_TOKEN, apiBase: config.HUBSPOT_API_BASE });
    console.log(`HubSpot portal ${String(record.settings?.portalId)}`);
    report = await new HubSpotConnector(record, standaloneDeps, { env: process.env }).ensureSchema();
  }
  printSchemaReport(report);
  if (report.problems.length) process.exitCode = EXIT.failed;
}

export async function connect(opts: ConnectOptions): Promise<void> {
  const config = loadConfig(process.env);
  if (opts.tier && !(opts.tier in RATE_TIERS)) throw new ConfigError('--tier', `must be one of ${Object.keys(RATE_TIERS).join(', ')}`);
  if (!config.HUBSPOT_ACCESS_TOKEN) throw new ConfigError('HUBSPOT_ACCESS_TOKEN', 'is required: the private app token to store');
  // The same function the dashboard's connection form uses.
  const record: ConnectionRecord = await hubspotTokenConnection(config, { accessToken: config.HUBSPOT_ACCESS_TOKEN, label: opts.label, rateTier: opts.tier });
  const { redis, store } = openConnectionStore(config);
  try {
    await store.save(record);
  } finally {
    redis.disconnect();
  }
  console.log(`stored connection ${record.id} (${record.label}); then: verify-hub hubspot setup --connection ${record.id}`);
}
