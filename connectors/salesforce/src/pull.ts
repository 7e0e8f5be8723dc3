import { z } from 'zod';
import { InputError, type Contact, type Page } from '@verify-hub/core';
import { BULK_PAGE, REST_PAGE, checkAllowance, estimateCalls, readAllowance } from './allowance';
import { SalesforceApiError, SalesforceErrors } from './errors';
import { FIELD_API_NAMES } from './mapping';
import { jsforceHttpApi } from './sdk';
import type { SalesforceSession } from './session';
import { conditionOf, selectQuery, selectedFields, type ReadPlan } from './soql';
import type { SalesforceObject, SalesforceSettings } from './settings';

/** How long one pull waits for a Bulk query job before handing back an empty page (the pager calls again). */
const BULK_WAIT_MS = 20_000;

/** A `changed` run's lower bound and the watermark it saves when it has paged everything, carried by every cursor. */
const Carried = { since: z.iso.datetime().optional(), mark: z.iso.datetime().optional() };
/** Cursors are opaque JSON to the pipeline; validated on the way back in. */
const Cursor = z.discriminatedUnion('mode', [
  /** REST query pages: Salesforce's nextRecordsUrl, and the last Id read (a new query resumes after it if the locator expired). */
  z.object({ mode: z.literal('rest'), o: z.number().int().min(0), next: z.string().startsWith('/services/data/'), lastId: z.string(), ...Carried }),
  /** A Bulk API 2.0 query job, paged by its Sforce-Locator. */
  z.object({ mode: z.literal('bulk'), o: z.number().int().min(0), job: z.string().regex(/^750[A-Za-z0-9]{12,15}$/), locator: z.string().optional(), ...Carried }),
  /** The next object's first page. */
  z.object({ mode: z.literal('start'), o: z.number().int().min(0), ...Carried }),
]);
/**
 * A `changed` run's watermark is taken this long before it starts: records changed while it pages, or
 * stamped by a server clock a little behind ours, are read again next time rather than missed.
 */
const WATERMARK_OVERLAP_MS = 5 * 60_000;
type Cursor = z.infer<typeof Cursor>;

const QueryAnswer = z.looseObject({ totalSize: z.number(), done: z.boolean(), nextRecordsUrl: z.string().optional(), records: z.array(z.looseObject({ Id: z.string() })) });
const JobInfo = z.looseObject({ id: z.string(), state: z.string(), errorMessage: z.string().nullish() });
type SfRecord = Record<string, unknown> & { Id: string };

function readCursor(cursor: string): Cursor {
  try {
    return Cursor.parse(JSON.parse(cursor));
  } catch {
    throw new InputError('cursor', 'is not a cursor this connector produced');
  }
}

/**
 * Reads Contacts and Leads: REST query pages (<= 2,000 records, `nextRecordsUrl`) ordered by Id, and,
 * when an object holds more than the threshold, the rest of it through a Bulk API 2.0 query job paged
 * by `Sforce-Locator`. The first page of a run estimates the run's calls against the org's allocation.
 */
export class SalesforcePuller {
  private personAccounts?: Promise<boolean>;

  constructor(
    private readonly session: SalesforceSession,
    private readonly settings: SalesforceSettings,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async pull(plan: ReadPlan, cursor?: string): Promise<Page> {
    const state = cursor === undefined ? this.firstCursor(plan) : readCursor(cursor);
    const carried = { ...(state.since ? { since: state.since } : {}), ...(state.mark ? { mark: state.mark } : {}) };
    const resolved = await this.resolvePlan(plan.sinceLastRun && state.since ? { ...plan, since: state.since } : plan);
    if (cursor === undefined) await this.preflight(resolved);
    const object = resolved.objects[state.o];
    if (!object) throw new InputError('cursor', 'names an object this scope does not read');
    const read = state.mode === 'start' ? await this.firstPage(object, resolved, state.o) : state.mode === 'rest' ? await this.restPage(object, resolved, state) : await this.bulkPage(object, state);
    const next = read.next ?? (state.o + 1 < resolved.objects.length ? ({ mode: 'start', o: state.o + 1 } as Cursor) : undefined);
    // Everything of a `changed` run paged: the next one reads from here.
    if (!next && plan.sinceLastRun && state.mark) await this.session.saveChangedWatermark(state.mark);
    return { ...(await this.toPage(object, read.records)), ...(next ? { next: JSON.stringify({ ...next, ...carried }) } : {}) };
  }

  /** How many records the scope reads: a `COUNT()` per object (the run's progress denominator). */
  async count(plan: ReadPlan): Promise<number> {
    const resolved = await this.resolvePlan(plan.sinceLastRun && this.session.changedWatermark ? { ...plan, since: this.session.changedWatermark } : plan);
    let total = 0;
    for (const object of resolved.objects) total += (await this.query(`SELECT COUNT() FROM ${object} WHERE ${conditionOf(object, resolved)}`)).totalSize;
    return total;
  }

  /** A run's first cursor: a `changed` run fixes its lower bound (the connection's watermark) and the watermark it will save. */
  private firstCursor(plan: ReadPlan): Cursor {
    if (!plan.sinceLastRun) return { mode: 'start', o: 0 };
    const since = this.session.changedWatermark;
    return { mode: 'start', o: 0, ...(since ? { since } : {}), mark: new Date(Date.now() - WATERMARK_OVERLAP_MS).toISOString() };
  }

  /** Records by Id (a replayed write, a change event): Contact ids start 003, Lead ids 00Q. */
  async byIds(ids: string[]): Promise<Contact[]> {
    const contacts: Contact[] = [];
    for (const object of ['Contact', 'Lead'] as const) {
      const prefix = object === 'Contact' ? '003' : '00Q';
      const wanted = [...new Set(ids.filter((id) => id.startsWith(prefix)).map((id) => id.replace(/[^A-Za-z0-9]/g, '')))];
      for (let i = 0; i < wanted.length; i += REST_PAGE / 10) {
        const list = wanted.slice(i, i + REST_PAGE / 10).map((id) => `'${id}'`).join(', ');
        const answer = await this.query(selectQuery(object, await this.fields(object), `Id IN (${list})`, false));
        contacts.push(...(await this.toPage(object, answer.records)).contacts);
      }
    }
    return contacts;
  }

  /** Whether the org has Person Accounts (Contact.IsPersonAccount exists): their contacts are written through their Account. */
  hasPersonAccounts(): Promise<boolean> {
    this.personAccounts ??= this.session
      .call((c) => c.request<{ fields: { name: string }[] }>(`${this.session.dataPath}/sobjects/Contact/describe`))
      .then((d) => d.fields.some((f) => f.name === 'IsPersonAccount'))
      .catch((error: unknown) => {
        this.personAccounts = undefined;
        throw error;
      });
    return this.personAccounts;
  }

  /** A list view's condition, asked of Salesforce (its describe gives the list view's SOQL), parsed like a user's. */
  private async resolvePlan(plan: ReadPlan): Promise<ReadPlan> {
    if (!plan.listView) return plan;
    const { object, id } = plan.listView;
    const described = z.looseObject({ query: z.string() }).safeParse(await this.session.call((c) => c.request(`${this.session.dataPath}/sobjects/${object}/listviews/${id}/describe`)));
    if (!described.success) throw new SalesforceApiError(`Salesforce answered the list view ${id} without its query`, 'NOT_FOUND');
    const where = /\sWHERE\s(.+?)(\sORDER BY\s.*)?$/is.exec(described.data.query)?.[1];
    return { ...plan, ...(where ? { where } : {}) };
  }

  private async preflight(plan: ReadPlan): Promise<void> {
    let estimate = 2;
    for (const object of plan.objects) {
      const counted = await this.query(`SELECT COUNT() FROM ${object} WHERE ${conditionOf(object, plan)}`);
      estimate += 1 + estimateCalls(counted.totalSize, this.settings);
    }
    checkAllowance(estimate, await readAllowance(this.session), this.settings.apiHeadroom);
  }

  private async firstPage(object: SalesforceObject, plan: ReadPlan, o: number, afterId?: string): Promise<{ records: SfRecord[]; next?: Cursor }> {
    const answer = await this.query(selectQuery(object, await this.fields(object), conditionOf(object, plan, afterId), true));
    const lastId = answer.records.at(-1)?.Id;
    if (answer.done || !lastId) return { records: answer.records };
    // Above the threshold the rest of the object is one Bulk query job: records after the last Id read here.
    if (answer.totalSize > this.settings.bulkQueryThreshold) {
      const job = await this.startBulkQuery(selectQuery(object, await this.fields(object), conditionOf(object, plan, lastId), false));
      return { records: answer.records, next: { mode: 'bulk', o, job } };
    }
    return { records: answer.records, next: { mode: 'rest', o, next: answer.nextRecordsUrl!, lastId } };
  }

  private async restPage(object: SalesforceObject, plan: ReadPlan, state: Extract<Cursor, { mode: 'rest' }>): Promise<{ records: SfRecord[]; next?: Cursor }> {
    let answer: z.infer<typeof QueryAnswer>;
    try {
      answer = QueryAnswer.parse(await this.session.call((c) => c.request(state.next)));
    } catch (error) {
      // A query locator expires after some idle minutes (a paused run): the same query, after the last Id read.
      if (error instanceof SalesforceApiError && error.errorCode === 'INVALID_QUERY_LOCATOR') return this.firstPage(object, plan, state.o, state.lastId);
      throw error;
    }
    const lastId = answer.records.at(-1)?.Id ?? state.lastId;
    return { records: answer.records, ...(!answer.done && answer.nextRecordsUrl ? { next: { mode: 'rest', o: state.o, next: answer.nextRecordsUrl, lastId } } : {}) };
  }

  private async startBulkQuery(query: string): Promise<string> {
    const created = JobInfo.parse(await this.session.call((c) => c.request({ method: 'POST', url: `${this.session.dataPath}/jobs/query`, body: JSON.stringify({ operation: 'query', query }), headers: { 'content-type': 'application/json' } })));
    return created.id;
  }

  /** One locator page of a Bulk query job, once the job is complete (polled here for a while first). */
  private async bulkPage(object: SalesforceObject, state: Extract<Cursor, { mode: 'bulk' }>): Promise<{ records: SfRecord[]; next?: Cursor }> {
    if (state.locator === undefined && !(await this.waitForJob(state.job))) return { records: [], next: state };
    let locator: string | undefined;
    const query = new URLSearchParams({ maxRecords: String(BULK_PAGE), ...(state.locator ? { locator: state.locator } : {}) });
    const records = await this.session.call(async (c) => {
      // jsforce's HttpApi for the results: its answer's Sforce-Locator header names the next page.
      const api = new (jsforceHttpApi())(c, { responseType: 'text/csv' });
      api.on('response', (response: { headers: Record<string, string | undefined> }) => (locator = response.headers['sforce-locator']));
      return api.request<SfRecord[]>({ method: 'GET', url: `${c.instanceUrl}${this.session.dataPath}/jobs/query/${state.job}/results?${query.toString()}`, headers: { Accept: 'text/csv' } });
    });
    const rows = (Array.isArray(records) ? records : []).map((row) => this.fromCsv(object, row));
    return { records: rows, ...(locator && locator !== 'null' ? { next: { ...state, locator } } : {}) };
  }

  /** Bulk CSV has no nulls: an empty cell is "not set", as core's comparison reads it. */
  private fromCsv(_object: SalesforceObject, row: Record<string, unknown>): SfRecord {
    return row as SfRecord;
  }

  private async waitForJob(job: string): Promise<boolean> {
    const started = Date.now();
    for (let wait = 250; ; wait = Math.min(wait * 2, 5_000)) {
      const info = JobInfo.parse(await this.session.call((c) => c.request(`${this.session.dataPath}/jobs/query/${job}`)));
      if (info.state === 'JobComplete') return true;
      if (info.state === 'Failed' || info.state === 'Aborted') throw new SalesforceApiError(`Salesforce's Bulk query job ${job} ended ${info.state}: ${info.errorMessage ?? 'no reason given'}`, 'BULK_QUERY_FAILED');
      if (Date.now() - started + wait > BULK_WAIT_MS) return false;
      await this.sleep(wait);
    }
  }

  private async query(soql: string): Promise<z.infer<typeof QueryAnswer>> {
    const answer = QueryAnswer.safeParse(await this.session.call((c) => c.request(`${this.session.dataPath}/query?${new URLSearchParams({ q: soql }).toString()}`)));
    if (!answer.success) throw new SalesforceErrors.TransientError('Salesforce answered a query without totalSize, done and records');
    return answer.data;
  }

  private async fields(object: SalesforceObject): Promise<string[]> {
    return selectedFields(object, object === 'Contact' && (await this.hasPersonAccounts()));
  }

  private async toPage(object: SalesforceObject, records: SfRecord[]): Promise<Page> {
    const contacts: Contact[] = [];
    let noEmail = 0;
    for (const record of records) {
      const email = typeof record.Email === 'string' ? record.Email.trim() : '';
      if (!email) {
        noEmail++;
        continue;
      }
      const current: Record<string, unknown> = { HasOptedOutOfEmail: record.HasOptedOutOfEmail ?? null };
      for (const name of FIELD_API_NAMES) current[name] = record[name] ?? null;
      // A Person Account's contact is written through its Account (the same fields, suffixed __pc).
      const person = object === 'Contact' && String(record.IsPersonAccount) === 'true' && typeof record.AccountId === 'string' ? { personAccount: record.AccountId } : undefined;
      contacts.push({ id: record.Id, email, current, ...(person ? { payload: person } : {}) });
    }
    return { contacts, ...(noEmail ? { skipped: { no_email: noEmail } } : {}) };
  }
}
