import type { Query } from '@jetstreamapp/soql-parser-js';
import { InputError, type Scope } from '@verify-hub/core';
import { FIELD_API_NAMES } from './mapping';
import { soqlParser } from './sdk';
import { SALESFORCE_OBJECTS, type SalesforceObject } from './settings';

/** What one scope reads: which objects, under which condition, changed since when. */
export interface ReadPlan {
  objects: SalesforceObject[];
  /** A WHERE condition as composed back from its parse (never the user's text as typed). */
  where?: string;
  /** `SystemModstamp` lower bound (ISO), exclusive. */
  since?: string;
  /** Since the last `changed` run finished paging (the connection's watermark), read when the run starts. */
  sinceLastRun?: boolean;
  /** A list view to read: its own condition is asked of Salesforce when the run starts. */
  listView?: { object: SalesforceObject; id: string };
}

const CLAUSES_REFUSED: (keyof Query)[] = ['limit', 'offset', 'orderBy', 'groupBy', 'having', 'for', 'update', 'withSecurityEnforced', 'withAccessLevel', 'withDataCategory', 'usingScope'];

/**
 * A user's SOQL condition, validated read-only: it must parse as the WHERE condition of a plain
 * `SELECT Id FROM <object>` and nothing else (no LIMIT, ORDER BY, FOR UPDATE, a second statement...),
 * and is sent as composed back from the parse. An error names `scope`.
 */
export function validatedWhere(condition: string, object: SalesforceObject = 'Contact'): string {
  const text = condition.trim();
  if (!text) throw new InputError('scope', 'needs a SOQL condition after the colon, for example contacts:LeadSource = \'Web\'');
  const { parseQuery } = soqlParser();
  let parsed: Query;
  try {
    parsed = parseQuery(`SELECT Id FROM ${object} WHERE ${text}`);
  } catch (error) {
    throw new InputError('scope', `is not a SOQL WHERE condition: ${String((error as Error).message).split('\n')[0]!.slice(0, 200)}`);
  }
  const extra = CLAUSES_REFUSED.filter((clause) => parsed[clause] !== undefined);
  if (extra.length || !parsed.where) throw new InputError('scope', `must be a WHERE condition only (found ${extra.join(', ') || 'no condition'})`);
  return whereOf(parsed);
}

/** The WHERE text of a parsed query, composed back by the parser. */
export function whereOf(parsed: Query): string {
  const composed = soqlParser().composeQuery({ fields: [{ type: 'Field', field: 'Id' }], sObject: parsed.sObject, where: parsed.where });
  const at = composed.indexOf(' WHERE ');
  return at < 0 ? '' : composed.slice(at + ' WHERE '.length);
}

const OBJECT_SCOPES: Record<string, SalesforceObject[] | 'settings'> = { all: 'settings', contacts: ['Contact'], leads: ['Lead'] };

/**
 * The scopes Salesforce runs read:
 * `all`, `contacts`, `leads` (each optionally `:<SOQL WHERE condition>`), `changed-since:<ISO time>`
 * (by SystemModstamp), `changed` (since the last `changed` run) and `listview:<Contact|Lead>:<list view id>`. An InputError naming `scope` otherwise.
 */
export function readPlan(scope: Scope, configured: readonly SalesforceObject[] = SALESFORCE_OBJECTS): ReadPlan {
  const objectsOf = (kind: string) => {
    const named = OBJECT_SCOPES[kind]!;
    return named === 'settings' ? [...configured] : named;
  };
  if (scope.kind in OBJECT_SCOPES) {
    const objects = objectsOf(scope.kind);
    return { objects, ...(scope.value !== undefined ? { where: validatedWhere(scope.value, objects[0]) } : {}) };
  }
  if (scope.kind === 'changed-since') {
    const at = Date.parse(scope.value ?? '');
    if (!Number.isFinite(at)) throw new InputError('scope', 'changed-since:<time> needs an ISO 8601 time, for example changed-since:2026-01-31T00:00:00Z');
    return { objects: [...configured], since: new Date(at).toISOString() };
  }
  if (scope.kind === 'changed') {
    if (scope.value !== undefined) throw new InputError('scope', 'changed takes no value: it reads what changed since the last `changed` run (use changed-since:<ISO time> for a time of your own)');
    return { objects: [...configured], sinceLastRun: true };
  }
  if (scope.kind === 'listview') {
    const match = /^(Contact|Lead):(00B[A-Za-z0-9]{12,15})$/.exec(scope.value ?? '');
    if (!match) throw new InputError('scope', 'listview:<Contact|Lead>:<list view id> needs the object and the list view id (00B...)');
    const object = match[1] as SalesforceObject;
    return { objects: [object], listView: { object, id: match[2]! } };
  }
  throw new InputError('scope', `Salesforce scopes are all, contacts, leads (each optionally :<SOQL condition>), changed-since:<ISO time>, changed and listview:<Contact|Lead>:<id>; got ${scope.kind}`);
}

/** A SOQL DateTime literal (no quotes, UTC). */
const soqlTime = (iso: string) => new Date(iso).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The fields every pull reads: the address, the change stamp, our own fields (to skip unchanged writes), the consent flag we may set. */
export function selectedFields(object: SalesforceObject, personAccounts: boolean): string[] {
  const own = [...FIELD_API_NAMES];
  const person = object === 'Contact' && personAccounts ? ['IsPersonAccount', 'AccountId'] : [];
  return ['Id', 'Email', 'SystemModstamp', 'HasOptedOutOfEmail', ...person, ...own];
}

/** The condition of one object's query: the plan's, changed-since, converted leads left out (Salesforce refuses their update), after an Id. */
export function conditionOf(object: SalesforceObject, plan: { where?: string; since?: string }, afterId?: string): string {
  const parts = [
    ...(plan.where ? [`(${plan.where})`] : []),
    ...(plan.since ? [`SystemModstamp > ${soqlTime(plan.since)}`] : []),
    ...(object === 'Lead' ? ['IsConverted = false'] : []),
    "Email != null",
    ...(afterId ? [`Id > '${afterId.replace(/[^A-Za-z0-9]/g, '')}'`] : []),
  ];
  return parts.join(' AND ');
}

export function selectQuery(object: SalesforceObject, fields: string[], condition: string, orderById: boolean): string {
  return `SELECT ${fields.join(', ')} FROM ${object} WHERE ${condition}${orderById ? ' ORDER BY Id' : ''}`;
}
