import { ConfigError, createLocalLimiter, type CliCommand, type ConnectionRecord } from '@verify-hub/core';
import { mailchimpEnvironment } from './environment';
import { MailchimpConnector } from './connector';
import { mailchimpKeyConnection } from './key-connection';
import { webhookPath } from './webhook';

/**
 * `verify-hub mailchimp ...`, described for the CLI (core's CliCommand): `connect` stores
 * MAILCHIMP_API_KEY and an audience as a connection; `setup` creates the verification merge fields
 * (EVRISK text, EVSCORE number, EVDATE text YYYY-MM-DD) in an audience, idempotently.
 */

const EXIT_FAILED = 1;
const listOption = { flags: '--list <id>', description: 'the audience (list) id, as shown in Audience > Settings', required: true };

/**
 * Mailchimp signs nothing, so the webhook secret lives in the webhook URL: it is printed once here,
 * for the user to paste into Audience > Settings > Webhooks.
 */
const connect: CliCommand = {
  name: 'connect',
  description: 'Store MAILCHIMP_API_KEY and an audience as a connection for sync, worker and serve (needs HUB_SECRET_KEY, REDIS_URL)',
  options: [listOption, { flags: '--label <text>', description: 'a name to show for the connection' }],
  async run(_args, options, context) {
    const { config, connections } = await context();
    const env = mailchimpEnvironment.read(config);
    const list = String(options.list);
    if (!env.MAILCHIMP_API_KEY) throw new ConfigError('MAILCHIMP_API_KEY', 'is required: the API key to store');
    if (!/^[A-Za-z0-9]+$/.test(list)) throw new ConfigError('--list', 'must be an audience id (letters and digits)');
    // The same function the dashboard's connection form uses: checks the key and audience, makes the webhook secret.
    const { record, webhookSecret } = await mailchimpKeyConnection(config, { apiKey: env.MAILCHIMP_API_KEY, listId: list, label: options.label as string | undefined });
    await connections!.save(record);
    const base = (config.HUB_PUBLIC_URL ?? `http://<your hub>:${config.PORT}`).replace(/\/+$/, '');
    console.log(`stored connection ${record.id} (${record.label})`);
    console.log(`webhook URL for Mailchimp (shown once; untick "by the API"): ${base}${webhookPath(record.id, webhookSecret)}`);
    console.log(`then: verify-hub mailchimp setup --list ${list} && verify-hub sync mailchimp --connection ${record.id}`);
  },
};

const setup: CliCommand = {
  name: 'setup',
  description: 'Create the EVRISK, EVSCORE and EVDATE merge fields in an audience (safe to run again)',
  options: [listOption, { flags: '--json', description: 'print the report as JSON' }],
  async run(_args, options, context) {
    const { config } = await context();
    const env = mailchimpEnvironment.read(config);
    const list = String(options.list);
    if (!env.MAILCHIMP_API_KEY) throw new ConfigError('MAILCHIMP_API_KEY', 'is required (Account > Extras > API keys; it ends with the data center, like -us21)');
    const connection: ConnectionRecord = {
      id: 'mailchimp-cli',
      platform: 'mailchimp',
      label: 'Mailchimp (MAILCHIMP_API_KEY)',
      createdAt: new Date().toISOString(),
      credentials: { apiKey: env.MAILCHIMP_API_KEY },
      settings: { listId: list, ...(env.MAILCHIMP_API_BASE ? { apiBase: env.MAILCHIMP_API_BASE } : {}) },
    };
    const report = await new MailchimpConnector(connection, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined }).ensureSchema();
    if (options.json) console.log(JSON.stringify(report, null, 2));
    else {
      console.log(`Audience ${list}:`);
      for (const item of report.created) console.log(`  created   ${item}`);
      for (const item of report.existing) console.log(`  existing  ${item}`);
      for (const item of report.problems) console.log(`  PROBLEM   ${item}`);
      console.log('Tags ev-safe, ev-risky, ev-invalid and ev-unknown are created by Mailchimp when first applied.');
    }
    return report.problems.length > 0 ? EXIT_FAILED : undefined;
  },
};

export const mailchimpCommands: CliCommand[] = [connect, setup];
