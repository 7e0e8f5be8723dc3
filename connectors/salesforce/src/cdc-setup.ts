import { z } from 'zod';
import { CDC_OBJECTS, type CdcObject } from './cdc-events';
import { DEFAULT_POLL_MS } from './cdc-fallback';
import { SalesforceApiError } from './errors';
import type { SalesforceSession } from './session';

/**
 * The editions with Change Data Capture, as the Organization object's `OrganizationType` names them
 * (Salesforce: "Enterprise, Performance, Unlimited, and Developer editions"). Any other edition
 * (Professional, Essentials, Group/Team, Personal, Contact Manager, Base) has none.
 */
export const CHANGE_DATA_CAPTURE_EDITIONS = ['Enterprise Edition', 'Unlimited Edition', 'Performance Edition', 'Developer Edition'];
/** The standard channel: its members are the Setup > Change Data Capture page's "Selected Entities". */
export const STANDARD_CHANNEL = 'ChangeEvents';
/** Entities an org may select across its channels without the Change Data Capture add-on. */
export const DEFAULT_ENTITY_ALLOCATION = 5;

const SETUP_PAGE = 'Setup > Integrations > Change Data Capture';
const POLL_MINUTES = DEFAULT_POLL_MS / 60_000;

const Organization = z.looseObject({ records: z.array(z.looseObject({ OrganizationType: z.string(), IsSandbox: z.boolean().optional() })).min(1) });
const Members = z.looseObject({
  records: z.array(z.looseObject({ Id: z.string(), DeveloperName: z.string(), EventChannel: z.string().nullish(), SelectedEntity: z.string().nullish() })),
});
type Member = z.infer<typeof Members>['records'][number];

/** What setup found and did about real time: the edition, and the change events selected on the standard channel. */
export interface RealTimeReport {
  edition: string;
  sandbox: boolean;
  changeDataCapture: boolean;
  /** Change events selected now (`ContactChangeEvent`). */
  created: string[];
  /** Change events that were selected already. */
  existing: string[];
  /** What the admin must do for real time to work; empty when nothing. */
  problems: string[];
}

const changeEvent = (object: CdcObject) => `${object}ChangeEvent`;
const memberName = (event: string) => `${STANDARD_CHANNEL}_${event}`;
/** A member of the standard channel (the developer name is `ChangeEvents_<Event>`; EventChannel may be the channel's id). */
const onStandardChannel = (m: Member) => m.EventChannel === STANDARD_CHANNEL || m.DeveloperName.startsWith(`${STANDARD_CHANNEL}_`);
const selects = (m: Member, event: string) => m.SelectedEntity === event || m.DeveloperName === memberName(event);
const isPermission = (code: string) => /^INSUFFICIENT_ACCESS/.test(code) || code === 'INVALID_TYPE';
const isAllocation = (error: SalesforceApiError) => error.errorCode === 'LIMIT_EXCEEDED' || /\b(maximum|limit)\b/i.test(error.message);

/**
 * Sets real time up the way Salesforce documents it: the edition is read from `Organization`; an
 * edition without Change Data Capture gets the scheduled `changed-since` pulls (nothing to select);
 * otherwise the Tooling API's `PlatformEventChannelMember` on the standard `ChangeEvents` channel is
 * read, and a member created for each of the connection's objects not selected yet (idempotent).
 * Salesforce refusing (a missing permission, the org's entity allocation used up) becomes a problem
 * naming what to do: streaming an unselected entity succeeds but delivers nothing, so it must be said.
 */
export async function ensureChangeEventSelection(session: SalesforceSession, objects: readonly string[]): Promise<RealTimeReport> {
  const organization = Organization.parse(await session.call((c) => c.query('SELECT OrganizationType, IsSandbox FROM Organization').then((answer) => answer)));
  const { OrganizationType: edition, IsSandbox: sandbox = false } = organization.records[0]!;
  const report: RealTimeReport = { edition, sandbox, changeDataCapture: CHANGE_DATA_CAPTURE_EDITIONS.includes(edition), created: [], existing: [], problems: [] };
  if (!report.changeDataCapture) return report;

  const wanted = CDC_OBJECTS.filter((o) => objects.includes(o)).map(changeEvent);
  let members: Member[];
  try {
    members = Members.parse(await session.call((c) => c.tooling.query('SELECT Id, DeveloperName, EventChannel, SelectedEntity FROM PlatformEventChannelMember').then((answer) => answer))).records.filter(onStandardChannel);
  } catch (error) {
    if (!(error instanceof SalesforceApiError) || !isPermission(error.errorCode)) throw error;
    report.problems.push(
      `Salesforce did not let the API user read the Change Data Capture selection (${error.errorCode}): give it the "View Setup and Configuration" and "Customize Application" permissions and run setup again, or select ${wanted.join(' and ')} by hand in ${SETUP_PAGE}`,
    );
    return report;
  }

  for (const event of wanted) {
    if (members.some((m) => selects(m, event))) {
      report.existing.push(event);
      continue;
    }
    try {
      await session.call((c) => c.tooling.create('PlatformEventChannelMember', { FullName: memberName(event), Metadata: { eventChannel: STANDARD_CHANNEL, selectedEntity: event } } as never));
      report.created.push(event);
    } catch (error) {
      if (!(error instanceof SalesforceApiError)) throw error;
      if (error.errorCode === 'DUPLICATE_DEVELOPER_NAME') report.existing.push(event);
      else report.problems.push(refusal(event, error, members));
    }
  }
  return report;
}

/** Why Salesforce refused to select a change event, and what the admin does about it. */
function refusal(event: string, error: SalesforceApiError, members: Member[]): string {
  const missed = `until it is selected, verify-hub gets no change events for ${event.replace(/ChangeEvent$/, '')}s (their channel stays silent)`;
  if (isPermission(error.errorCode)) {
    return `Salesforce refused to select ${event} (${error.errorCode}): the API user needs the "Customize Application" permission to select Change Data Capture entities; grant it (a permission set) and run setup again, or select it by hand in ${SETUP_PAGE}; ${missed}`;
  }
  if (isAllocation(error)) {
    const selected = members.map((m) => m.SelectedEntity ?? m.DeveloperName.slice(STANDARD_CHANNEL.length + 1));
    return `Salesforce refused to select ${event}: the org's Change Data Capture entities are used up (${DEFAULT_ENTITY_ALLOCATION} without the Change Data Capture add-on; selected now: ${selected.join(', ') || 'none on the standard channel'}). Deselect one no longer needed in ${SETUP_PAGE} (or buy the add-on) and run setup again; ${missed} (${error.message})`;
  }
  return `Salesforce refused to select ${event} (${error.message}): select it by hand in ${SETUP_PAGE}; ${missed}`;
}

/** What setup prints about real time. */
export function realTimeLines(report: RealTimeReport): string[] {
  const org = `${report.edition}${report.sandbox ? ' (sandbox)' : ''}`;
  if (!report.changeDataCapture) {
    return [
      `real time: this org is ${org}, which has no Change Data Capture (only Enterprise, Unlimited, Performance and Developer editions have it): Contacts and Leads changed since the last look are pulled every ${POLL_MINUTES} minutes instead, by verify-hub serve or worker`,
    ];
  }
  const lines = [`real time: this org is ${org}: verify-hub follows Change Data Capture on the standard ${STANDARD_CHANNEL} channel`];
  if (report.created.length) lines.push(`selected for Change Data Capture: ${report.created.join(', ')}`);
  if (report.existing.length) lines.push(`already selected for Change Data Capture: ${report.existing.join(', ')}`);
  return lines;
}
