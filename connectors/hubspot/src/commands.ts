import { ConfigError, InputError, createLocalLimiter, type CliCommand, type Config, type SchemaReport } from '@verify-hub/core';
import { hubspotEnvironment } from './environment';
import { HubSpotConnector } from './connector';
import { hubspotInstallUrl, privateAppConnection } from './oauth';
import { RATE_TIERS, type RateTier } from './settings';
import { verifyActionComponent, verifyActionDefinition } from './action-definition';
import { actionDefinitionsApi } from './action-definitions-api';
import { hubspotTokenConnection } from './token-connection';

/**
 * `verify-hub hubspot ...`, described for the CLI (core's CliCommand): `setup` creates the property
 * group and properties verify-hub writes, `connect` stores a private app's token as the portal's
 * connection, `actions` manages the public app's workflow action, `install-url` prints the OAuth link.
 */

const EXIT_FAILED = 1;

function printSchemaReport(report: SchemaReport): void {
  console.log(report.created.length ? `created: ${report.created.join(', ')}` : 'created: nothing (everything was already there)');
  if (report.existing.length) console.log(`already there: ${report.existing.join(', ')}`);
  for (const problem of report.problems) console.log(`problem: ${problem}`);
}

const setup: CliCommand = {
  name: 'setup',
  description: 'Create the "Email verification" property group and properties in the portal (idempotent)',
  options: [{ flags: '--connection <id>', description: 'a stored connection (hubspot-<portalId>); default: HUBSPOT_ACCESS_TOKEN' }],
  async run(_args, options, context) {
    const { config, openConnector } = await context();
    const env = hubspotEnvironment.read(config);
    let report: SchemaReport;
    if (typeof options.connection === 'string') {
      report = await (await openConnector(options.connection)).ensureSchema();
    } else {
      if (!env.HUBSPOT_ACCESS_TOKEN) throw new ConfigError('HUBSPOT_ACCESS_TOKEN', 'is required (a private app token), or pass --connection <id> of a stored connection');
      const record = await privateAppConnection({ accessToken: env.HUBSPOT_ACCESS_TOKEN, apiBase: env.HUBSPOT_API_BASE });
      console.log(`HubSpot portal ${String(record.settings?.portalId)}`);
      // Standalone: an in-process limiter, nothing to save.
      report = await new HubSpotConnector(record, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined }, { env }).ensureSchema();
    }
    printSchemaReport(report);
    return report.problems.length ? EXIT_FAILED : undefined;
  },
};

const connect: CliCommand = {
  name: 'connect',
  description: 'Store HUBSPOT_ACCESS_TOKEN (a private app token) as the connection hubspot-<portalId>, sealed with HUB_SECRET_KEY',
  options: [
    { flags: '--label <text>', description: 'a name to show for the connection' },
    { flags: '--tier <tier>', description: 'rate tier: private-standard (100/10 s) or private-pro (190/10 s)', default: 'private-standard' },
  ],
  async run(_args, options, context) {
    const { config, connections } = await context();
    const env = hubspotEnvironment.read(config);
    const tier = options.tier as string | undefined;
    if (tier && !(tier in RATE_TIERS)) throw new ConfigError('--tier', `must be one of ${Object.keys(RATE_TIERS).join(', ')}`);
    if (!env.HUBSPOT_ACCESS_TOKEN) throw new ConfigError('HUBSPOT_ACCESS_TOKEN', 'is required: the private app token to store');
    // The same function the dashboard's connection form uses.
    const record = await hubspotTokenConnection(config, { accessToken: env.HUBSPOT_ACCESS_TOKEN, label: options.label as string | undefined, rateTier: tier as RateTier | undefined });
    await connections!.save(record);
    console.log(`stored connection ${record.id} (${record.label}); then: verify-hub hubspot setup --connection ${record.id}`);
  },
};

function definitions(config: Config, appIdOption: unknown) {
  const env = hubspotEnvironment.read(config);
  const appId = typeof appIdOption === 'string' ? appIdOption : env.HUBSPOT_APP_ID;
  if (!appId || !/^\d+$/.test(appId)) throw new ConfigError(typeof appIdOption === 'string' ? '--app-id' : 'HUBSPOT_APP_ID', 'is required: the numeric id of the public app');
  if (!env.HUBSPOT_DEVELOPER_TOKEN) {
    throw new ConfigError('HUBSPOT_DEVELOPER_TOKEN', 'is required: an OAuth access token of the developer account with the developers-read and developers-write scopes (the definitions API takes no developer API key)');
  }
  return { appId: Number(appId), api: actionDefinitionsApi({ basePath: env.HUBSPOT_API_BASE, developerToken: env.HUBSPOT_DEVELOPER_TOKEN }) };
}

function actionUrlOf(config: Config, given: unknown): string {
  if (typeof given === 'string' && given) return given;
  if (!config.HUB_PUBLIC_URL) throw new ConfigError('HUB_PUBLIC_URL', 'is required to name the action URL (or pass --action-url)');
  return `${config.HUB_PUBLIC_URL.replace(/\/+$/, '')}/actions/hubspot`;
}

const appIdOption = { flags: '--app-id <id>', description: 'the public app id (default HUBSPOT_APP_ID)' };

const actions: CliCommand = {
  name: 'actions',
  description: 'The "Verify email address" workflow action: the project component (current platform), or the definitions API of a legacy public app (HUBSPOT_APP_ID, HUBSPOT_DEVELOPER_TOKEN)',
  subcommands: [
    {
      name: 'component',
      description: 'Print the action as a developer-project component (hubspot-project/src/app/workflow-actions/verify-email-hsmeta.json); HubSpot calls <HUB_PUBLIC_URL>/actions/hubspot',
      options: [{ flags: '--action-url <url>', description: 'the URL HubSpot calls (default HUB_PUBLIC_URL + /actions/hubspot)' }],
      async run(_args, options, context) {
        console.log(JSON.stringify(verifyActionComponent(actionUrlOf((await context()).config, options.actionUrl)), null, 2));
      },
    },
    {
      name: 'publish',
      description: 'Legacy public apps: define and publish the action through the definitions API; HubSpot calls <HUB_PUBLIC_URL>/actions/hubspot',
      options: [appIdOption, { flags: '--action-url <url>', description: 'the URL HubSpot calls (default HUB_PUBLIC_URL + /actions/hubspot)' }],
      async run(_args, options, context) {
        const { config } = await context();
        const { appId, api } = definitions(config, options.appId);
        const actionUrl = actionUrlOf(config, options.actionUrl);
        const created = await api.create(appId, verifyActionDefinition(actionUrl));
        console.log(`published "Verify email address" as action ${created.id} (app ${appId}), calling ${actionUrl}`);
      },
    },
    {
      name: 'list',
      description: "List the app's workflow actions",
      options: [appIdOption],
      async run(_args, options, context) {
        const { appId, api } = definitions((await context()).config, options.appId);
        const listed = await api.list(appId);
        if (!listed.length) console.log(`no workflow actions on app ${appId}`);
        for (const d of listed) console.log(`${d.id}\t${d.published ? 'published' : 'draft'}\t${d.labels?.en?.actionName ?? ''}\t${d.actionUrl}`);
      },
    },
    {
      name: 'delete <definitionId>',
      description: "Delete (archive) one of the app's workflow actions",
      options: [appIdOption],
      async run([definitionId], options, context) {
        if (!definitionId || !/^\d+$/.test(definitionId)) throw new ConfigError('definitionId', 'must be a numeric action id (see `hubspot actions list`)');
        const { appId, api } = definitions((await context()).config, options.appId);
        await api.archive(appId, definitionId);
        console.log(`deleted action ${definitionId} from app ${appId}`);
      },
    },
  ],
};

const installUrl: CliCommand = {
  name: 'install-url',
  description: 'Print the OAuth install URL of the public app (HUBSPOT_CLIENT_ID)',
  options: [
    { flags: '--redirect-uri <url>', description: 'the callback URL registered in the app', required: true },
    { flags: '--state <value>', description: 'an unguessable value the callback checks' },
  ],
  async run(_args, options, context) {
    const { config } = await context();
    const env = hubspotEnvironment.read(config);
    if (!env.HUBSPOT_CLIENT_ID) throw new ConfigError('HUBSPOT_CLIENT_ID', 'is required for the install URL');
    console.log(hubspotInstallUrl({ clientId: env.HUBSPOT_CLIENT_ID, redirectUri: String(options.redirectUri), state: options.state as string | undefined }));
  },
};

const EVENT_SOURCES = ['webhooks', 'journal'] as const;

const events: CliCommand = {
  name: 'events <source>',
  description: "Where a connection's contact events come from: webhooks (HubSpot calls the hub) or journal (the hub reads HubSpot's webhooks journal; no public URL needed)",
  options: [{ flags: '--connection <id>', description: 'a stored connection (hubspot-<portalId>)', required: true }],
  async run([source], options, context) {
    if (!(EVENT_SOURCES as readonly string[]).includes(source)) throw new InputError('source', `must be one of ${EVENT_SOURCES.join(', ')}`);
    const { config, connections } = await context();
    const env = hubspotEnvironment.read(config);
    if (source === 'journal' && (!env.HUBSPOT_CLIENT_ID || !env.HUBSPOT_CLIENT_SECRET)) {
      throw new ConfigError(env.HUBSPOT_CLIENT_ID ? 'HUBSPOT_CLIENT_SECRET' : 'HUBSPOT_CLIENT_ID', "is needed to read the webhooks journal (the public app's client credentials)");
    }
    const id = String(options.connection);
    const connection = await connections?.get(id);
    if (!connection || connection.platform !== 'hubspot') throw new InputError('--connection', `no stored HubSpot connection "${id}"`);
    await connections!.save({ ...connection, settings: { ...connection.settings, events: source } });
    console.log(source === 'journal'
      ? `${id}: events now come from HubSpot's webhooks journal, read by verify-hub serve and verify-hub worker (within a minute)`
      : `${id}: events now come from HubSpot's push webhooks at <HUB_PUBLIC_URL>/webhooks/hubspot`);
  },
};

export const hubspotCommands: CliCommand[] = [setup, connect, actions, events, installUrl];
