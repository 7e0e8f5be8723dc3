import type { Command } from 'commander';
import type { ConnectOptions, SetupOptions } from '../actions/hubspot';
import type { ActionsOptions } from '../actions/hubspot-workflow-action';

/**
 * `verify-hub hubspot setup` creates the property group and properties verify-hub writes (and says
 * what it created); `verify-hub hubspot connect` stores a private app's token as the portal's
 * connection; `verify-hub hubspot install-url` prints the public app's OAuth install link.
 */
export function register(program: Command): void {
  const hubspot = program.command('hubspot').description('HubSpot CRM: set up the verification properties, connect a portal');
  hubspot
    .command('setup')
    .description('Create the "Email verification" property group and properties in the portal (idempotent)')
    .option('--connection <id>', 'a stored connection (hubspot-<portalId>); default: HUBSPOT_ACCESS_TOKEN')
    .action(async (opts: SetupOptions) => (await import('../actions/hubspot')).setup(opts));
  hubspot
    .command('connect')
    .description('Store HUBSPOT_ACCESS_TOKEN (a private app token) as the connection hubspot-<portalId>, sealed with HUB_SECRET_KEY')
    .option('--label <text>', 'a name to show for the connection')
    .option('--tier <tier>', 'rate tier: private-standard (100/10 s) or private-pro (190/10 s)', 'private-standard')
    .action(async (opts: ConnectOptions) => (await import('../actions/hubspot')).connect(opts));
  const actions = hubspot
    .command('actions')
    .description('The "Verify email address" workflow action of the public app (HUBSPOT_APP_ID, HUBSPOT_DEVELOPER_API_KEY)');
  actions
    .command('publish')
    .description('Define and publish the action; HubSpot calls <HUB_PUBLIC_URL>/actions/hubspot')
    .option('--app-id <id>', 'the public app id (default HUBSPOT_APP_ID)')
    .option('--action-url <url>', 'the URL HubSpot calls (default HUB_PUBLIC_URL + /actions/hubspot)')
    .action(async (opts: ActionsOptions) => (await import('../actions/hubspot-workflow-action')).publish(opts));
  actions
    .command('list')
    .description("List the app's workflow actions")
    .option('--app-id <id>', 'the public app id (default HUBSPOT_APP_ID)')
    .action(async (opts: ActionsOptions) => (await import('../actions/hubspot-workflow-action')).list(opts));
  actions
    .command('delete <definitionId>')
    .description('Delete (archive) one of the app\'s workflow actions')
    .option('--app-id <id>', 'the public app id (default HUBSPOT_APP_ID)')
    .action(async (definitionId: string, opts: ActionsOptions) => (await import('../actions/hubspot-workflow-action')).remove(definitionId, opts));
  hubspot
    .command('install-url')
    .description('Print the OAuth install URL of the public app (HUBSPOT_CLIENT_ID)')
    .requiredOption('--redirect-uri <url>', 'the callback URL registered in the app')
    .option('--state <value>', 'an unguessable value the callback checks')
    .action(async (opts: { redirectUri: string; state?: string }) => {
      const { ConfigError, loadConfig } = await import('@verify-hub/core');
      const { hubspotInstallUrl } = await import('@verify-hub/connector-hubspot');
      const config = loadConfig(process.env);
      if (!config.HUBSPOT_CLIENT_ID) throw new ConfigError('HUBSPOT_CLIENT_ID', 'is required for the install URL');
      console.log(hubspotInstallUrl({ clientId: config.HUBSPOT_CLIENT_ID, redirectUri: opts.redirectUri, state: opts.state }));
    });
}
