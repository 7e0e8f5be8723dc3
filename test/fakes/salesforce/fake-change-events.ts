/**
 * The fake org's Change Data Capture selection, as the Tooling API's `PlatformEventChannelMember`
 * serves it: one member per selected entity on the standard `ChangeEvents` channel (developer name
 * `ChangeEvents_<Event>`), queried with SOQL at `/tooling/query` (needs "View Setup and
 * Configuration") and created by POST `/tooling/sobjects/PlatformEventChannelMember` with
 * `{ FullName, Metadata: { eventChannel, selectedEntity } }` (needs "Customize Application"). Without
 * the add-on an org selects at most 5 entities: the sixth is refused (LIMIT_EXCEEDED; the wording is
 * the fake's). An edition without Change Data Capture does not know the object (INVALID_TYPE).
 */

export const STANDARD_CHANNEL = 'ChangeEvents';
/** The editions with Change Data Capture, as `Organization.OrganizationType` names them. */
export const CDC_EDITIONS = ['Enterprise Edition', 'Unlimited Edition', 'Performance Edition', 'Developer Edition'];

export interface ChannelMember {
  Id: string;
  DeveloperName: string;
  EventChannel: string;
  SelectedEntity: string;
}

type Answer = { status: number; body: unknown };
const refusal = (status: number, errorCode: string, message: string): Answer => ({ status, body: [{ errorCode, message }] });
const INSUFFICIENT_ACCESS = 'You do not have the level of access necessary to perform the operation you requested. Please contact the owner of the record or your administrator if access is necessary.';

export class FakeChangeEventSelection {
  /** The members, by developer name. */
  readonly members = new Map<string, ChannelMember>();
  /** Entities selectable across the org's channels (5 without the Change Data Capture add-on). */
  allocation = 5;
  /** The API user's permissions that matter here. */
  readonly permissions = { viewSetupAndConfiguration: true, customizeApplication: true };
  /** Every member creation asked for (refused ones too). */
  readonly createCalls: string[] = [];
  private serial = 1;

  constructor(private readonly edition: () => string) {}

  get available(): boolean {
    return CDC_EDITIONS.includes(this.edition());
  }

  /** What an admin does on the Setup page: selects entities (`Contact`, `Account`, `MyObject__c`...). */
  select(...objects: string[]): void {
    for (const object of objects) this.add(object.endsWith('__c') ? `${object.slice(0, -3)}__ChangeEvent` : `${object}ChangeEvent`);
  }

  /** Whether Salesforce publishes change events for this object: the edition has them and the entity is selected. */
  publishes(object: string): boolean {
    return this.available && [...this.members.values()].some((m) => m.SelectedEntity === `${object}ChangeEvent`);
  }

  /** `/tooling/query?q=` for PlatformEventChannelMember (every member; a WHERE on EventChannel or SelectedEntity is applied). */
  query(soql: string): Answer {
    if (!/\bFROM\s+PlatformEventChannelMember\b/i.test(soql)) return refusal(400, 'INVALID_TYPE', `the fake's Tooling API answers PlatformEventChannelMember only: ${soql}`);
    if (!this.available) return refusal(400, 'INVALID_TYPE', "sObject type 'PlatformEventChannelMember' is not supported.");
    if (!this.permissions.viewSetupAndConfiguration) return refusal(403, 'INSUFFICIENT_ACCESS', INSUFFICIENT_ACCESS);
    const where = [...soql.matchAll(/\b(EventChannel|SelectedEntity)\s*=\s*'([^']*)'/g)].map((m) => [m[1] as keyof ChannelMember, m[2]!] as const);
    const records = [...this.members.values()].filter((m) => where.every(([field, value]) => m[field] === value));
    return { status: 200, body: { totalSize: records.length, done: true, records: records.map((m) => ({ attributes: { type: 'PlatformEventChannelMember', url: `/services/data/v62.0/tooling/sobjects/PlatformEventChannelMember/${m.Id}` }, ...m })) } };
  }

  /** POST `/tooling/sobjects/PlatformEventChannelMember`. */
  create(body: string): Answer {
    const input = JSON.parse(body) as { FullName?: string; Metadata?: { eventChannel?: string; selectedEntity?: string } };
    const entity = input.Metadata?.selectedEntity ?? '';
    this.createCalls.push(entity);
    if (!this.available) return refusal(400, 'INVALID_TYPE', "sObject type 'PlatformEventChannelMember' is not supported.");
    if (!this.permissions.customizeApplication) return refusal(403, 'INSUFFICIENT_ACCESS', INSUFFICIENT_ACCESS);
    if (input.Metadata?.eventChannel !== STANDARD_CHANNEL || !/^[A-Za-z0-9_]+ChangeEvent$/.test(entity)) return refusal(400, 'FIELD_INTEGRITY_EXCEPTION', `no such channel or change event: ${input.Metadata?.eventChannel}/${entity}`);
    const name = input.FullName ?? `${STANDARD_CHANNEL}_${entity}`;
    if (this.members.has(name)) return refusal(400, 'DUPLICATE_DEVELOPER_NAME', `The developer name ${name} is already in use`);
    if (this.members.size >= this.allocation) {
      return refusal(400, 'LIMIT_EXCEEDED', `You've reached the maximum number of entities (${this.allocation}) that can be selected for Change Data Capture.`);
    }
    const member = this.add(entity, name);
    return { status: 201, body: { id: member.Id, success: true, errors: [], warnings: [], infos: [] } };
  }

  private add(entity: string, name = `${STANDARD_CHANNEL}_${entity}`): ChannelMember {
    const member = { Id: `0v8${String(this.serial++).padStart(15, '0')}`, DeveloperName: name, EventChannel: STANDARD_CHANNEL, SelectedEntity: entity };
    this.members.set(name, member);
    return member;
  }
}
