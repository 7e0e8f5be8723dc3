import { ConfigError, type CliCommand, type Config, type ConnectionRecord, type PlatformContext } from '@verify-hub/core';
import { parseAccountUrl } from './account-url';
import { remember } from './account-schema';
import { connectionFromToken, oneOffClient } from './connection';
import { ensureSchema } from './ensure-schema';
import { activecampaignEnvironment } from './environment';
import { activecampaignConnectionId } from './settings';
import { webhookPath } from './webhook-delivery';
import { registerHubWebhook } from './webhook-registration';

/**
 * `verify-hub activecampaign ...`, described for the CLI (core's CliCommand): `connect` stores an
 * account's API URL and ACTIVECAMPAIGN_API_TOKEN as a connection; `setup` makes the fields and tags
 * (idempotent) and registers the hub's webhook. `verify-hub disconnect activecampaign-<account>` removes
 * the webhook again.
 */

const EXIT_FAILED = 1;
const urlOption = { flags: '--url <apiUrl>', description: 'the account API URL (Settings > Developer), like https://youraccount.api-us1.com', required: true };

function envToken(config: Config): string {
  const token = activecampaignEnvironment.read(config).ACTIVECAMPAIGN_API_TOKEN;
  if (!token) throw new ConfigError('ACTIVECAMPAIGN_API_TOKEN', 'is required (Settings > Developer in ActiveCampaign)');
  return token;
}

/** Registers the connection's webhook when the hub's public URL is known; otherwise prints its address to add by hand. */
async function registerOrPrint(context: PlatformContext, record: ConnectionRecord, print: (line: string) => void): Promise<void> {
  const { config } = context;
  const env = activecampaignEnvironment.read(config);
  const registration = config.HUB_PUBLIC_URL ? await registerHubWebhook(oneOffClient(record, env), record, config.HUB_PUBLIC_URL) : undefined;
  if (registration?.registered) return print('  webhook   registered (contact subscribes and updates, not those made through the API)');
  if (registration?.problem) print(`  PROBLEM   ${registration.problem}: add it by hand`);
  const base = (config.HUB_PUBLIC_URL ?? `https://<your hub>`).replace(/\/+$/, '');
  print(`  webhook   add by hand (Settings > Developer > Manage Webhooks; shown once): ${base}${webhookPath(record.id, String(record.credentials.webhookSecret ?? ''))}`);
}

const connect: CliCommand = {
  name: 'connect',
  description: 'Store an account API URL and ACTIVECAMPAIGN_API_TOKEN as a connection for sync, worker and serve (needs HUB_SECRET_KEY, REDIS_URL); with HUB_PUBLIC_URL, registers the webhook',
  options: [urlOption, { flags: '--label <text>', description: 'a name to show for the connection' }],
  async run(_args, options, context) {
    const opened = await context();
    const { record } = await connectionFromToken(activecampaignEnvironment.read(opened.config), { apiUrl: String(options.url), apiToken: envToken(opened.config), label: options.label as string | undefined });
    await opened.connections!.save(record);
    console.log(`stored connection ${record.id} (${record.label})`);
    await registerOrPrint(opened, record, (line) => console.log(line));
    console.log(`then: verify-hub activecampaign setup --url ${String(record.settings?.apiUrl)} && verify-hub sync activecampaign --connection ${record.id}`);
  },
};

const setup: CliCommand = {
  name: 'setup',
  description: 'Create the EV custom fields (related to --list, or to every list) and the tags ev-safe, ev-risky, ev-invalid, ev-unknown (safe to run again); with HUB_PUBLIC_URL and a stored connection, registers its webhook',
  options: [urlOption, { flags: '--list <id>', description: 'relate the fields to this list only (default: every list)' }, { flags: '--json', description: 'print the report as JSON' }],
  async run(_args, options, context) {
    const opened = await context();
    const env = activecampaignEnvironment.read(opened.config);
    const account = parseAccountUrl(String(options.url), '--url');
    const list = options.list === undefined ? undefined : String(options.list);
    if (list !== undefined && !/^\d+$/.test(list)) throw new ConfigError('--list', 'must be a list id (digits)');
    const stored = opened.config.HUB_SECRET_KEY ? await opened.connections?.get(activecampaignConnectionId(account.account)) : undefined;
    const record: ConnectionRecord = stored ?? {
      id: activecampaignConnectionId(account.account),
      platform: 'activecampaign',
      label: 'ActiveCampaign (ACTIVECAMPAIGN_API_TOKEN)',
      createdAt: new Date().toISOString(),
      credentials: { apiToken: envToken(opened.config) },
      settings: { apiUrl: account.origin },
    };
    const client = oneOffClient(record, env);
    const { report, schema } = await ensureSchema(client, list);
    remember(`${env.ACTIVECAMPAIGN_API_BASE ?? account.origin} ${account.account}`, schema);
    const lines: string[] = [];
    if (stored) await registerOrPrint(opened, stored, (line) => lines.push(line));
    if (options.json) console.log(JSON.stringify({ ...report, webhook: lines }, null, 2));
    else {
      console.log(`ActiveCampaign ${account.account}:`);
      for (const item of report.created) console.log(`  created   ${item}`);
      for (const item of report.existing) console.log(`  existing  ${item}`);
      for (const item of report.problems) console.log(`  PROBLEM   ${item}`);
      for (const line of lines) console.log(line);
    }
    return report.problems.length > 0 ? EXIT_FAILED : undefined;
  },
};

export const activecampaignCommands: CliCommand[] = [connect, setup];
