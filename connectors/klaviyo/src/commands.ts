import { ConfigError, InputError, type CliCommand, type Config, type ConnectionRecord } from '@verify-hub/core';
import { keyConnection, oneOffApi } from './connection';
import { klaviyoEnvironment } from './environment';
import { OPTIONAL_SCOPES, REQUIRED_SCOPES, missingScopesError, probeScopes } from './scopes';
import { FLOW_SECRET_HEADER, flowWebhookBody, flowWebhookRequest } from './webhook';

/**
 * `verify-hub klaviyo ...`, described for the CLI (core's CliCommand): `connect` stores
 * KLAVIYO_PRIVATE_KEY as a connection once its scopes are checked; `setup` checks a stored
 * connection's scopes again and prints the flow webhook to make in Klaviyo (address, header, body).
 * Syncing and disconnecting are the CLI's own `verify-hub sync klaviyo` and `verify-hub disconnect`.
 */

const EXIT_FAILED = 1;

function privateKeyOf(config: Config): string {
  const { KLAVIYO_PRIVATE_KEY: key } = klaviyoEnvironment.read(config);
  if (!key) throw new ConfigError('KLAVIYO_PRIVATE_KEY', 'is required (Klaviyo: Settings > API keys > Create private API key)');
  return key;
}

function printFlowWebhook(config: Config, record: ConnectionRecord, print: (line: string) => void): void {
  const base = (config.HUB_PUBLIC_URL ?? `http://<your hub>:${config.PORT}`).replace(/\/+$/, '');
  print('Real time: in Klaviyo, Flows > Create flow > "Added to list" (your list), then add a Webhook action:');
  print(`  URL      ${base}/webhooks/klaviyo`);
  const request = flowWebhookRequest(record);
  for (const [name, value] of Object.entries(request.headers ?? {})) print(`  Header   ${name}: ${value}   (keep it secret; it is this connection's)`);
  print(`  Body     ${request.body}`);
  print('Profiles changed in other ways are read every KLAVIYO_CHANGES_POLL_SECONDS (60) by `verify-hub serve` or `verify-hub worker`.');
}

const connect: CliCommand = {
  name: 'connect',
  description: 'Store KLAVIYO_PRIVATE_KEY as a connection for sync, worker and serve once its scopes are checked (needs HUB_SECRET_KEY, REDIS_URL)',
  options: [{ flags: '--label <text>', description: 'a name to show for the connection' }],
  async run(_args, options, context) {
    const { config, connections } = await context();
    if (!connections) throw new ConfigError('HUB_SECRET_KEY', 'is required to store a connection');
    const env = klaviyoEnvironment.read(config);
    const { record, optionalMissing } = await keyConnection(env, { apiKey: privateKeyOf(config), label: options.label as string | undefined });
    await connections.save(record);
    console.log(`stored connection ${record.id} (${record.label}); scopes checked: ${Object.keys(REQUIRED_SCOPES).join(', ')}`);
    for (const scope of optionalMissing) console.log(`note: without ${scope} the key cannot be used to ${OPTIONAL_SCOPES[scope as keyof typeof OPTIONAL_SCOPES]}`);
    printFlowWebhook(config, record, (line) => console.log(line));
    console.log(`then: verify-hub sync klaviyo --connection ${record.id}`);
  },
};

const setup: CliCommand = {
  name: 'setup',
  description: "Check a stored connection's scopes again and print the Klaviyo flow webhook to make (custom properties need no creation)",
  options: [
    { flags: '--connection <id>', description: 'the stored connection (klaviyo-<account>)', required: true },
    { flags: '--json', description: 'print the report as JSON' },
  ],
  async run(_args, options, context) {
    const { config, connections } = await context();
    const id = String(options.connection);
    if (!connections) throw new ConfigError('HUB_SECRET_KEY', 'is required to read a stored connection');
    const record = await connections.get(id);
    if (!record || record.platform !== 'klaviyo') throw new InputError('--connection', `no stored Klaviyo connection "${id}" (verify-hub klaviyo connect makes one)`);
    const { missing, optionalMissing } = await probeScopes(oneOffApi(record.credentials, klaviyoEnvironment.read(config)));
    if (options.json) {
      console.log(JSON.stringify({ connection: id, created: [], missingScopes: missing, optionalMissingScopes: optionalMissing, flowWebhook: { path: '/webhooks/klaviyo', header: FLOW_SECRET_HEADER, body: flowWebhookBody(id) } }, null, 2));
    } else {
      console.log(`Klaviyo ${id}: custom properties ev_* need no creation (Klaviyo keeps any property a profile is given).`);
      if (missing.length) console.log(`  PROBLEM   ${missingScopesError('key', missing).message}`);
      else console.log(`  scopes    ${Object.keys(REQUIRED_SCOPES).join(', ')}: all held`);
      for (const scope of optionalMissing) console.log(`  note      without ${scope} the key cannot be used to ${OPTIONAL_SCOPES[scope as keyof typeof OPTIONAL_SCOPES]}`);
      printFlowWebhook(config, record, (line) => console.log(line));
    }
    return missing.length ? EXIT_FAILED : undefined;
  },
};

export const klaviyoCommands: CliCommand[] = [connect, setup];
