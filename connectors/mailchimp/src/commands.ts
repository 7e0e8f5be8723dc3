import { ConfigError, type CliCommand, type Config, type ConnectionRecord, type ConnectionStore } from '@verify-hub/core';
import { oneOffConnector } from './connector';
import { mailchimpEnvironment } from './environment';
import { mailchimpAudiences, mailchimpKeyConnection } from './key-connection';
import { webhookPath } from './webhook';
import { SIGNING_SECRET_CREDENTIAL, registerHubWebhook } from './webhook-registration';

/**
 * `verify-hub mailchimp ...`, described for the CLI (core's CliCommand): `connect` stores
 * MAILCHIMP_API_KEY and an audience as a connection; `audiences` lists the account's audiences; `setup` creates the verification merge fields
 * (EVRISK text, EVSCORE number, EVDATE text YYYY-MM-DD) in an audience, idempotently.
 */

const EXIT_FAILED = 1;
const listOption = { flags: '--list <id>', description: 'the audience (list) id, as shown in Audience > Settings', required: true };

function apiKeyOf(config: Config): string {
  const { MAILCHIMP_API_KEY: apiKey } = mailchimpEnvironment.read(config);
  if (!apiKey) throw new ConfigError('MAILCHIMP_API_KEY', 'is required (Account > Extras > API keys; it ends with the data center, like -us21)');
  return apiKey;
}

async function printAudiences(config: Config): Promise<void> {
  const audiences = await mailchimpAudiences(config, apiKeyOf(config));
  if (audiences.length === 0) console.log('This Mailchimp account has no audience yet.');
  for (const audience of audiences) console.log(`${audience.value}  ${audience.label}${audience.detail ? ` (${audience.detail})` : ''}`);
}

const audiences: CliCommand = {
  name: 'audiences',
  description: "List the audiences of MAILCHIMP_API_KEY's account (id, name, members)",
  async run(_args, _options, context) {
    await printAudiences((await context()).config);
  },
};

/**
 * With HUB_PUBLIC_URL, the hub's audience webhook is registered here (not for API changes, so the
 * hub's writes never come back); without it, or when Mailchimp refuses, its URL (holding the
 * connection's secret) is printed once to paste in by hand.
 */
const connect: CliCommand = {
  name: 'connect',
  description: 'Store MAILCHIMP_API_KEY and an audience as a connection for sync, worker and serve (needs HUB_SECRET_KEY, REDIS_URL); without --list, lists the audiences',
  options: [{ ...listOption, required: false }, { flags: '--label <text>', description: 'a name to show for the connection' }],
  async run(_args, options, context) {
    const { config, connections } = await context();
    const apiKey = apiKeyOf(config);
    if (options.list === undefined) {
      console.log('Pick an audience and run again with --list <id>:');
      await printAudiences(config);
      return EXIT_FAILED;
    }
    const list = String(options.list);
    if (!/^[A-Za-z0-9]+$/.test(list)) throw new ConfigError('--list', 'must be an audience id (letters and digits)');
    // The same function the dashboard's connection form uses: checks the key and audience, makes the webhook secret.
    const { record, webhookSecret } = await mailchimpKeyConnection(config, { apiKey, listId: list, label: options.label as string | undefined });
    await connections!.save(record);
    console.log(`stored connection ${record.id} (${record.label})`);
    const registration = config.HUB_PUBLIC_URL ? await registerHubWebhook(record, config.HUB_PUBLIC_URL) : undefined;
    if (registration?.record) await connections!.save(registration.record);
    if (registration?.registered) console.log('registered the audience webhook in Mailchimp (subscriber and admin changes; not API changes, so the hub\'s writes never come back)');
    else {
      if (registration?.problem) console.log(`${registration.problem}: add it by hand`);
      const base = (config.HUB_PUBLIC_URL ?? `http://<your hub>:${config.PORT}`).replace(/\/+$/, '');
      console.log(`webhook URL for Mailchimp (shown once; untick "by the API"): ${base}${webhookPath(record.id, webhookSecret)}`);
    }
    console.log(`then: verify-hub mailchimp setup --list ${list} && verify-hub sync mailchimp --connection ${record.id}`);
  },
};

/**
 * The stored connections of an audience registered again with HUB_PUBLIC_URL: a webhook registered
 * before Mailchimp signed deliveries (no signing secret held) is replaced by a signed one; a signed
 * one the hub holds the secret of is left as it is.
 */
async function reregisterWebhooks(config: Config, store: () => ConnectionStore | undefined, listId: string, print: (line: string) => void): Promise<void> {
  // Nothing stored to register again without the key that seals stored connections.
  const connections = config.HUB_PUBLIC_URL && config.HUB_SECRET_KEY ? store() : undefined;
  if (!config.HUB_PUBLIC_URL || !connections) return;
  for (const stored of await connections.list('mailchimp')) {
    if (stored.platform !== 'mailchimp' || stored.settings?.listId !== listId) continue;
    const registration = await registerHubWebhook(stored, config.HUB_PUBLIC_URL);
    if (registration?.record) await connections.save(registration.record);
    if (registration?.record) print(`  webhook   registered again for ${stored.id}${registration.record.credentials[SIGNING_SECRET_CREDENTIAL] ? ', signed' : ' (Mailchimp gave no signing secret)'}`);
    else if (registration?.problem) print(`  PROBLEM   ${stored.id}: ${registration.problem}`);
  }
}

const setup: CliCommand = {
  name: 'setup',
  description: 'Create the EVRISK, EVSCORE and EVDATE merge fields in an audience (safe to run again); with HUB_PUBLIC_URL, registers the stored connections\' webhooks again where they are not signed',
  options: [listOption, { flags: '--json', description: 'print the report as JSON' }],
  async run(_args, options, context) {
    const opened = await context();
    const { config } = opened;
    const env = mailchimpEnvironment.read(config);
    const list = String(options.list);
    const connection: ConnectionRecord = {
      id: 'mailchimp-cli',
      platform: 'mailchimp',
      label: 'Mailchimp (MAILCHIMP_API_KEY)',
      createdAt: new Date().toISOString(),
      credentials: { apiKey: apiKeyOf(config) },
      settings: { listId: list, ...(env.MAILCHIMP_API_BASE ? { apiBase: env.MAILCHIMP_API_BASE } : {}) },
    };
    const report = await oneOffConnector(connection).ensureSchema();
    if (options.json) console.log(JSON.stringify(report, null, 2));
    else {
      console.log(`Audience ${list}:`);
      for (const item of report.created) console.log(`  created   ${item}`);
      for (const item of report.existing) console.log(`  existing  ${item}`);
      for (const item of report.problems) console.log(`  PROBLEM   ${item}`);
      console.log('Tags ev-safe, ev-risky, ev-invalid and ev-unknown are created by Mailchimp when first applied.');
    }
    await reregisterWebhooks(config, () => opened.connections, list, options.json ? () => undefined : (line) => console.log(line));
    return report.problems.length > 0 ? EXIT_FAILED : undefined;
  },
};

export const mailchimpCommands: CliCommand[] = [connect, audiences, setup];
