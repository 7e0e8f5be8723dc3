import type { Command } from 'commander';
import { ConfigError, createLocalLimiter, loadConfig, type ConnectionRecord } from '@verify-hub/core';
import { MailchimpConnector } from '@verify-hub/connector-mailchimp';
import { EXIT } from '../command';

interface SetupOptions {
  list: string;
  json?: boolean;
}

/**
 * `verify-hub mailchimp setup --list ID`: creates the verification merge fields (EVRISK text,
 * EVSCORE number, EVDATE text YYYY-MM-DD) in an audience, idempotently, and prints what it created.
 * Uses MAILCHIMP_API_KEY (data center from its suffix) and MAILCHIMP_API_BASE when set.
 */
export function register(program: Command): void {
  const mailchimp = program.command('mailchimp').description('Mailchimp audiences: set up the verification merge fields');
  mailchimp
    .command('setup')
    .description('Create the EVRISK, EVSCORE and EVDATE merge fields in an audience (safe to run again)')
    .requiredOption('--list <id>', 'the audience (list) id, as shown in Audience > Settings')
    .option('--json', 'print the report as JSON')
    .action(async (opts: SetupOptions) => {
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
    });
}
