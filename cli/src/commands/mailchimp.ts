import type { Command } from 'commander';
import type { ConnectOptions, SetupOptions } from '../actions/mailchimp';

/**
 * `verify-hub mailchimp setup --list ID`: creates the verification merge fields (EVRISK text,
 * EVSCORE number, EVDATE text YYYY-MM-DD) in an audience, idempotently, and prints what it created.
 * Uses MAILCHIMP_API_KEY (data center from its suffix) and MAILCHIMP_API_BASE when set.
 */
export function register(program: Command): void {
  const mailchimp = program.command('mailchimp').description('Mailchimp audiences: set up the verification merge fields');
  mailchimp
    .command('connect')
    .description('Store MAILCHIMP_API_KEY and an audience as a connection for sync, worker and serve (needs HUB_SECRET_KEY, REDIS_URL)')
    .requiredOption('--list <id>', 'the audience (list) id, as shown in Audience > Settings')
    .option('--label <text>', 'a name to show for the connection')
    .action(async (opts: ConnectOptions) => (await import('../actions/mailchimp')).connect(opts));
  mailchimp
    .command('setup')
    .description('Create the EVRISK, EVSCORE and EVDATE merge fields in an audience (safe to run again)')
    .requiredOption('--list <id>', 'the audience (list) id, as shown in Audience > Settings')
    .option('--json', 'print the report as JSON')
    .action(async (opts: SetupOptions) => (await import('../actions/mailchimp')).setup(opts));
}
