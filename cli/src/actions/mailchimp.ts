// `verify-hub mailchimp` commands' work, loaded when one runs (so `--help` loads no platform client).
import { ConfigError, createLocalLimiter, loadConfig, type ConnectionRecord } from '@verify-hub/core';
import { MailchimpConnector } from '@verify-hub/connector-mailchimp';
import { EXIT } from '../command';
import { openConnectionStore } from '../stored-connections';
import { mailchimpKeyConnection, mailchimpWebhookPath } from '../platform-setup';

export interface ConnectOptions {
  list: string;
  label?: string;
}

/**
 * Stores MAILCHIMP_API_KEY and an audience as connection `mailchimp-<dc>-<list>` for `verify-hub sync`,
 * with a new random webhook secret. Mailchimp signs nothing, so the secret lives in the webhook URL:
 * it is printed once here, for the user to paste into Audience > Settings > Webhooks.
 */
export async function connect(opts: ConnectOptions): Promise<void> {
  const config = loadConfig(process.env);
  if (!config.MAILCHIMP_API_KEY) throw new ConfigError('MAILCHIMP_API_KEY', 'is required: the API key to store');
  if (!/^[A-Za-z0-9]+$/.test(opts.list)) throw new ConfigError('--list', 'must be an audience id (letters and digits)');
  // The same function the dashboard's connection form uses: checks the key and audience, makes the webhook secret.
  const { record, webhookSecret } = await mailchimpKeyConnection(config, { apiKey: config.MAILCHIMP_API_KEY, listId: opts.list, label: opts.label });
  const { redis, store } = openConnectionStore(config);
  try {
    await store.save(record);
  } finally {
    redis.disconnect();
  }
  const base = (config.HUB_PUBLIC_URL ?? `http://<your hub>:${config.PORT}`).replace(/\/+$/, '');
  console.log(`stored connection ${record.id} (${record.label})`);
  console.log(`webhook URL for Mailchimp (shown once; untick "by the API"): ${base}${mailchimpWebhookPath(record.id, webhookSecret)}`);
  console.log(`then: verify-hub mailchimp setup --list ${opts.list} && verify-hub sync mailchimp --connection ${record.id}`);
}

export interface SetupOptions {
  list: string;
  json?: boolean;
}

/** `mailchimp setup`: the merge fields, created when missing. */
export async function setup(opts: SetupOptions): Promise<void> {
  const config = loadConfig(process.env);
  if (!config.MAILCHIMP_API_KEY) throw new ConfigError('MAILCHIMP_API_KEY', 'is required (Account > Extras > API keys; it ends with the data center, like -us21)');
  const connection: ConnectionRecord = {
    id: 'mailchimp-cli',
    platform: 'mailchimp',
    label: 'Mailchimp (MAILCHIMP_API_KEY)',
    createdAt: new Date().toISOString(),
    credentials: { apiKey: config.MAILCHIMP_API_KEY },
    settings: { listId: opts.list, ...(config.MAILCHIMP_API_BASE ? { apiBase: config.MAILCHIMP_API_BASE } : {}) },
  };
  const connector = new MailchimpConnector(connection, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined });
  const report = await connector.ensureSchema();
  if (opts.json) console.log(JSON.stringify(report, null, 2));
  else {
    console.log(`Audience ${opts.list}:`);
    for (const item of report.created) console.log(`  created   ${item}`);
    for (const item of report.existing) console.log(`  existing  ${item}`);
    for (const item of report.problems) console.log(`  PROBLEM   ${item}`);
    console.log('Tags ev-safe, ev-risky, ev-invalid and ev-unknown are created by Mailchimp when first applied.');
  }
  if (report.problems.length > 0) process.exitCode = EXIT.failed;
}
