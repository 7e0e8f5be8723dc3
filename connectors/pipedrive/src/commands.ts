import { ConfigError, InputError, type CliCommand, type SchemaReport } from '@verify-hub/core';
import { tokenConnection } from './connection';
import { pipedriveEnvironment } from './environment';
import { setUpConnection } from './open';

/**
 * `verify-hub pipedrive ...`: `connect` stores PIPEDRIVE_API_TOKEN as the company's connection,
 * `setup` makes the person fields (keeping their keys with the connection) and, with HUB_PUBLIC_URL,
 * registers the webhooks. Runs: `verify-hub sync pipedrive`; removal: `verify-hub disconnect <id>`.
 */

const EXIT_FAILED = 1;

function printReport(report: SchemaReport): void {
  console.log(report.created.length ? `created: ${report.created.join('; ')}` : 'created: nothing (everything was already there)');
  if (report.existing.length) console.log(`already there: ${report.existing.join(', ')}`);
  for (const problem of report.problems) console.log(`problem: ${problem}`);
}

const filterOption = { flags: '--filter <id>', description: 'the saved person filter (filter_id) a run of scope `all` reads' };

const connect: CliCommand = {
  name: 'connect',
  description: 'Store PIPEDRIVE_API_TOKEN as the connection pipedrive-<companyId> (sealed with HUB_SECRET_KEY), then set it up',
  options: [{ flags: '--label <text>', description: 'a name to show for the connection' }, filterOption],
  async run(_args, options, context) {
    const { config, connections } = await context();
    const env = pipedriveEnvironment.read(config);
    if (!env.PIPEDRIVE_API_TOKEN) throw new ConfigError('PIPEDRIVE_API_TOKEN', 'is required: the API token to store (Personal preferences > API)');
    const filter = options.filter === undefined ? undefined : String(options.filter);
    if (filter !== undefined && !/^\d+$/.test(filter)) throw new InputError('--filter', 'must be the numeric id of a saved person filter');
    const record = await tokenConnection(env, { apiToken: env.PIPEDRIVE_API_TOKEN, ...(options.label ? { label: String(options.label) } : {}), ...(filter ? { filterId: Number(filter) } : {}) });
    await connections!.save(record);
    console.log(`stored connection ${record.id} (${record.label})`);
    const { record: setUp, report } = await setUpConnection(record, env, config.HUB_PUBLIC_URL);
    await connections!.save(setUp);
    printReport(report);
    if (!config.HUB_PUBLIC_URL) console.log('no HUB_PUBLIC_URL: no webhooks registered (persons are verified by runs only)');
    console.log(`then: verify-hub sync pipedrive --connection ${record.id}`);
    return report.problems.length ? EXIT_FAILED : undefined;
  },
};

const setup: CliCommand = {
  name: 'setup',
  description: 'Create the person fields EV risk, EV score, EV reason and EV checked at (idempotent), keep their keys, and with HUB_PUBLIC_URL register the webhooks',
  options: [{ flags: '--connection <id>', description: 'the stored connection (pipedrive-<companyId>); default: the only one' }],
  async run(_args, options, context) {
    const { config, connections } = await context();
    const env = pipedriveEnvironment.read(config);
    const stored = (await connections!.list('pipedrive')).filter((c) => c.platform === 'pipedrive');
    const id = typeof options.connection === 'string' ? options.connection : stored.length === 1 ? stored[0]!.id : undefined;
    if (!id) throw new InputError('--connection', stored.length ? `name one of ${stored.map((c) => c.id).join(', ')}` : 'no Pipedrive connection is stored: run `verify-hub pipedrive connect` first');
    const record = stored.find((c) => c.id === id);
    if (!record) throw new InputError('--connection', `no Pipedrive connection named ${id}`);
    const { record: setUp, report } = await setUpConnection(record, env, config.HUB_PUBLIC_URL);
    await connections!.save(setUp);
    console.log(`Pipedrive ${String(record.settings?.companyDomain)} (${record.id}):`);
    printReport(report);
    return report.problems.length ? EXIT_FAILED : undefined;
  },
};

export const pipedriveCommands: CliCommand[] = [connect, setup];
