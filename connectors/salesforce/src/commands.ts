import { ConfigError, InputError, type CliCommand, type SchemaReport } from '@verify-hub/core';
import { realTimeLines } from './cdc-setup';
import { jwtConnection } from './connect';
import { SalesforceConnector } from './connector';
import { salesforceEnvironment } from './environment';
import { SalesforceSettings } from './settings';

/**
 * `verify-hub salesforce ...`, described for the CLI (core's CliCommand): `connect` signs in with the
 * JWT bearer flow and stores the org's connection, `setup` creates the fields and their permission
 * set, then sets real time up for the org's edition (cdc-setup.ts). Runs and disconnecting are the
 * CLI's own: `verify-hub sync salesforce --connection <id>`,
 * `verify-hub disconnect <id>`.
 */

const EXIT_FAILED = 1;

function printSchemaReport(report: SchemaReport): void {
  console.log(report.created.length ? `created: ${report.created.join(', ')}` : 'created: nothing (everything was already there)');
  if (report.existing.length) console.log(`already there: ${report.existing.join(', ')}`);
  for (const problem of report.problems) console.log(`problem: ${problem}`);
}

const whole = (flag: string, value: unknown): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InputError(flag, 'must be a whole number');
  return n;
};

const connect: CliCommand = {
  name: 'connect',
  description: 'Sign in with the JWT bearer flow (SALESFORCE_CLIENT_ID, SALESFORCE_JWT_PRIVATE_KEY) and store the org as connection salesforce-<orgId>, sealed with HUB_SECRET_KEY',
  options: [
    { flags: '--username <user>', description: 'the integration user (default SALESFORCE_USERNAME)' },
    { flags: '--sandbox', description: 'sign in at the sandbox login host (SALESFORCE_SANDBOX_LOGIN_URL)' },
    { flags: '--label <text>', description: 'a name to show for the connection' },
    { flags: '--objects <list>', description: 'what `all` reads: Contact,Lead (default both)' },
    { flags: '--bulk-query-threshold <n>', description: 'records above which an object is read with a Bulk API 2.0 query (default 50000)' },
    { flags: '--api-headroom <n>', description: "daily API calls a run leaves for the org's other integrations (default 1000)" },
  ],
  async run(_args, options, context) {
    const { config, connections } = await context();
    if (!connections) throw new ConfigError('HUB_SECRET_KEY', 'is needed to store the connection');
    const env = salesforceEnvironment.read(config);
    const username = typeof options.username === 'string' ? options.username : env.SALESFORCE_USERNAME;
    if (!username) throw new ConfigError('SALESFORCE_USERNAME', 'is required (or --username): the user the JWT bearer flow signs in as');
    // The user's choices are checked before signing in: bad input costs no call.
    const chosen = {
      ...(typeof options.objects === 'string' ? { objects: options.objects.split(',').map((o) => o.trim()) } : {}),
      ...(options.bulkQueryThreshold !== undefined ? { bulkQueryThreshold: whole('--bulk-query-threshold', options.bulkQueryThreshold) } : {}),
      ...(options.apiHeadroom !== undefined ? { apiHeadroom: whole('--api-headroom', options.apiHeadroom) } : {}),
    };
    const record = await jwtConnection(env, { username, environment: options.sandbox ? 'sandbox' : 'production', label: options.label as string | undefined });
    const settings = SalesforceSettings.safeParse({ ...record.settings, ...chosen });
    if (!settings.success) throw new InputError(String(settings.error.issues[0]!.path[0] ?? 'settings'), settings.error.issues[0]!.message);
    await connections.save({ ...record, settings: { ...record.settings, ...chosen } });
    console.log(`stored connection ${record.id} (${record.label}); then: verify-hub salesforce setup --connection ${record.id}`);
  },
};

const setup: CliCommand = {
  name: 'setup',
  description: "Create the verify-hub fields on Contact and Lead and the Verify_Hub_Fields permission set, assigned to the API user; read the org's edition and select Contact and Lead for Change Data Capture where it has it (idempotent)",
  options: [{ flags: '--connection <id>', description: 'a stored connection (salesforce-<orgId>)', required: true }],
  async run(_args, options, context) {
    const { openConnector } = await context();
    const connector = await openConnector(String(options.connection));
    const report = await connector.ensureSchema();
    printSchemaReport(report);
    // A refused selection does not stop the fields: it is reported with them.
    const realTime = connector instanceof SalesforceConnector ? await connector.ensureRealTime() : undefined;
    for (const line of realTime ? realTimeLines(realTime) : []) console.log(line);
    for (const problem of realTime?.problems ?? []) console.log(`problem: ${problem}`);
    return report.problems.length || realTime?.problems.length ? EXIT_FAILED : undefined;
  },
};

export const salesforceCommands: CliCommand[] = [connect, setup];
