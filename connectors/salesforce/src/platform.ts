import { definePlatform, platformConnector } from '@verify-hub/core';
import { BULK_PAGE } from './allowance';
import { changeEventsTask } from './cdc-task';
import { salesforceCommands } from './commands';
import { salesforceSetup } from './connect';
import { SalesforceConnector } from './connector';
import { salesforceEnvironment } from './environment';
import { SalesforceSettings } from './settings';
import { readPlan } from './soql';

/**
 * The most records one `write` gets: a Bulk query page. The connector sends them as sObject
 * Collections calls of 200, or as one Bulk API 2.0 ingest job above `bulkWriteThreshold` changed records.
 */
export const WRITE_BATCH_SIZE = BULK_PAGE;

/** Salesforce Contacts and Leads, as one platform module (docs/adding-a-platform.md). */
export const salesforcePlatform = definePlatform({
  id: 'salesforce',
  label: 'Salesforce',
  settings: SalesforceSettings,
  environment: salesforceEnvironment,
  writeBatchSize: WRITE_BATCH_SIZE,
  connector: platformConnector(
    { settings: SalesforceSettings, environment: salesforceEnvironment },
    (connection, deps, { settings, environment }) => new SalesforceConnector(connection, deps, settings, environment),
    (scope) => void readPlan(scope),
  ),
  card: {
    description: 'Contacts and Leads: verification results as EV_* custom fields (with their permission set)',
    scopes: [
      { scope: 'all', label: 'All Contacts and Leads' },
      { scope: 'contacts', label: 'Contacts' },
      { scope: 'leads', label: 'Leads' },
      { scope: "contacts:LeadSource = 'Web'", label: 'Contacts matching a SOQL condition' },
      { scope: 'listview:Contact:<list view id>', label: 'One list view' },
      { scope: 'changed', label: 'Changed since the last `changed` run (SystemModstamp)' },
      { scope: 'changed-since:<ISO time>', label: 'Changed since a time (SystemModstamp)' },
    ],
    defaultScope: 'all',
  },
  reconnectAdvice: 'reconnect Salesforce (Connections in the dashboard, or `verify-hub salesforce connect` for a JWT connection)',
  setup: ({ config }) => salesforceSetup(config),
  commands: salesforceCommands,
  // Change Data Capture (or scheduled pulls without it) for every connection: cdc-task.ts.
  tasks: (context) => (context.host ? [changeEventsTask(context, context.host)] : []),
});
