import { ConfigError, InputError, type CliCommand, type Config, type ConnectionRecord, type ConnectionStore } from '@verify-hub/core';
import { oneOffConnector } from './connector';
import { brevoEnvironment } from './environment';
import { brevoKeyConnection } from './key-connection';
import { registerHubWebhook } from './webhook-registration';

/**
 * `verify-hub brevo ...` (core's CliCommand): `connect` stores BREVO_API_KEY as the connection
 * `brevo-<organization_id>`; `setup` creates the EV_* attributes and the dedicated list and registers
 * the marketing webhook (with HUB_PUBLIC_URL). Syncing and disconnecting are the hub's own commands:
 * `verify-hub sync brevo --connection <id>`, `verify-hub disconnect <id>`.
 */

const EXIT_FAILED = 1;

function apiKeyOf(config: Config): string {
  const { BREVO_API_KEY: apiKey } = brevoEnvironment.read(config);
  if (!apiKey) throw new ConfigError('BREVO_API_KEY', 'is required (Brevo: Settings > SMTP & API > API keys)');
  return apiKey;
}

async function storedConnection(connections: ConnectionStore | undefined, id: string): Promise<ConnectionRecord> {
  if (!connections) throw new ConfigError('HUB_SECRET_KEY', 'is needed to read stored connections');
  const record = await connections.get(id);
  if (!record || record.platform !== 'brevo') throw new InputError('--connection', `no stored Brevo connection "${id}" (see \`verify-hub brevo connect\`)`);
  return record;
}

/** Registers the webhook when the hub's public URL is known, and says what happened. */
async function registerAndSay(config: Config, record: ConnectionRecord): Promise<void> {
  if (!config.HUB_PUBLIC_URL) {
    console.log('webhook: not registered (set HUB_PUBLIC_URL to the hub\'s public address and run `verify-hub brevo setup` again)');
    return;
  }
  const registration = await registerHubWebhook(record, config.HUB_PUBLIC_URL, brevoEnvironment.read(config).BREVO_API_BASE);
  if (registration?.registered) console.log('webhook: registered in Brevo (Contact updated, Contact added to list, Contact deleted)');
  else if (registration) console.log(`webhook: ${registration.problem}; add ${registration.url} by hand (Settings > Webhooks > Marketing)`);
}

const connect: CliCommand = {
  name: 'connect',
  description: 'Store BREVO_API_KEY as the connection brevo-<organization_id>, sealed with HUB_SECRET_KEY (needs REDIS_URL)',
  options: [
    { flags: '--key-name <name>', description: "the key's name in Brevo: webhook events caused by the hub's own writes carry it and are ignored" },
    { flags: '--label <text>', description: 'a name to show for the connection' },
  ],
  async run(_args, options, context) {
    const { config, connections } = await context();
    if (!connections) throw new ConfigError('HUB_SECRET_KEY', 'is needed to store a connection');
    const apiBase = brevoEnvironment.read(config).BREVO_API_BASE;
    // The same function the dashboard's connection form uses.
    const record = await brevoKeyConnection(apiBase, { apiKey: apiKeyOf(config), apiKeyName: options.keyName as string | undefined, label: options.label as string | undefined });
    const old = await connections.get(record.id);
    // Connecting again keeps the webhook token (the registered webhook's address) and what setup found (the list).
    await connections.save(old ? { ...record, credentials: { ...record.credentials, webhookToken: old.credentials.webhookToken ?? record.credentials.webhookToken }, settings: { ...old.settings, ...record.settings } } : record);
    console.log(`stored connection ${record.id} (${record.label}); then: verify-hub brevo setup --connection ${record.id}`);
    if (!options.keyName) console.log('note: without --key-name, the hub recognises its own writes only by the attributes they change');
  },
};

const setup: CliCommand = {
  name: 'setup',
  description: 'Create the EV_* contact attributes and the dedicated verify-hub list, and register the marketing webhook (HUB_PUBLIC_URL); safe to run again',
  options: [
    { flags: '--connection <id>', description: 'a stored connection (brevo-<organization_id>); default: BREVO_API_KEY, attributes and list only' },
    { flags: '--json', description: 'print the report as JSON' },
  ],
  async run(_args, options, context) {
    const { config, connections } = await context();
    const apiBase = brevoEnvironment.read(config).BREVO_API_BASE;
    const record = typeof options.connection === 'string' ? await storedConnection(connections, options.connection) : await brevoKeyConnection(apiBase, { apiKey: apiKeyOf(config) });
    const connector = oneOffConnector(record, apiBase);
    const report = await connector.ensureSchema();
    if (options.json) console.log(JSON.stringify(report, null, 2));
    else {
      for (const item of report.created) console.log(`  created   ${item}`);
      for (const item of report.existing) console.log(`  existing  ${item}`);
      for (const item of report.problems) console.log(`  PROBLEM   ${item}`);
    }
    if (typeof options.connection === 'string') {
      const listId = await connector.dedicatedList();
      const saved = { ...record, settings: { ...record.settings, listId } };
      await connections!.save(saved);
      if (!options.json) await registerAndSay(config, saved);
    }
    return report.problems.length ? EXIT_FAILED : undefined;
  },
};

export const brevoCommands: CliCommand[] = [connect, setup];
