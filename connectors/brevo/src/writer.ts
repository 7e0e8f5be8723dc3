import { changedValues, RateLimitError, sameStoredValue, type ContactResult, type PlannedAction, type WriteFailure, type WriteOptions, type WriteReport } from '@verify-hub/core';
import type { BrevoApi, BrevoContact } from './brevo-api';
import { brevoAttributes, currentAttributes } from './mapping';
import type { BrevoSettings } from './settings';

/** One contact to write: its Brevo id and address as read just now, and the attributes that differ. */
interface Row {
  id: number;
  contactId: string;
  email: string;
  attributes: Record<string, string | number>;
}

/** How long between read-backs of an import, growing to the last. */
const READ_BACK_DELAYS_MS = [200, 400, 800, 1_500, 3_000, 5_000, 10_000];
/** The import's status (a call of the 100-an-hour budget) is asked at most this often while read-backs lag (and at least twice within `importWaitSeconds`). */
const PROCESS_CHECK_EVERY_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes one batch (at most `writeBatchSize` contacts). The contacts whose pulled values differ
 * are read again first (500 a call): a replayed batch (a worker killed mid-write, the host's one retry) then finds its values
 * already there and writes nothing twice; a contact deleted, blocklisted or given another address
 * since the pull is not written. Only changed attributes are sent, never an empty one, never a
 * consent field. Bulk goes through an import into the dedicated list; Brevo reports no per-row
 * outcome of an import, so the batch is read back until every value shows, and rows that never show
 * once the import has finished are counted as failed.
 */
export async function writeBatch(api: BrevoApi, settings: BrevoSettings, listId: () => Promise<number>, results: ContactResult[], options: WriteOptions): Promise<WriteReport> {
  const report: WriteReport & { actions: PlannedAction[] } = { written: 0, unchanged: [], failed: [], actions: [] };
  const blocklists = (result: ContactResult) => result.verification.risk === 'invalid' && options.actions?.invalid === 'unsubscribe';
  // What the pull read already matches: nothing to read again (an unchanged re-sync costs its pages only).
  const candidates: ContactResult[] = [];
  for (const result of results) {
    if (blocklists(result) || Object.keys(changedValues(result.contact.current, brevoAttributes(result.verification))).length > 0) candidates.push(result);
    else report.unchanged.push(result.contact.id);
  }
  const ids = candidates.map((r) => Number(r.contact.id)).filter((id) => Number.isSafeInteger(id) && id > 0);
  const now = new Map((await api.contactsByIds(ids)).map((c) => [String(c.id), c] as const));
  const rows: Row[] = [];
  const toBlocklist: { id: number; contactId: string; email: string }[] = [];
  for (const { contact, verification } of candidates) {
    const stored = now.get(contact.id);
    const refusal = refusalOf(stored, contact.email);
    if (refusal) {
      report.failed.push({ contactId: contact.id, email: contact.email, reason: refusal, retryable: false });
      continue;
    }
    const attributes = changedValues(currentAttributes(stored!.attributes), brevoAttributes(verification));
    const blocklist = blocklists({ contact, verification });
    if (blocklist) toBlocklist.push({ id: stored!.id, contactId: contact.id, email: contact.email });
    if (Object.keys(attributes).length === 0) {
      if (!blocklist) report.unchanged.push(contact.id);
      continue;
    }
    rows.push({ id: stored!.id, contactId: contact.id, email: stored!.email!, attributes });
  }
  if (options.dryRun) {
    report.written = rows.length;
    report.actions.push(...toBlocklist.map((c) => ({ contactId: c.contactId, email: c.email, action: 'unsubscribe' as const, applied: false })));
    return report;
  }
  const direct = settings.writeMode === 'update' || rows.length <= settings.directWriteLimit;
  const failed = direct ? await writeOneByOne(api, rows) : await importAndReadBack(api, settings, await listId(), rows);
  report.failed.push(...failed);
  report.written = rows.length - failed.length;
  for (const contact of toBlocklist) {
    // The clean action the user chose: Brevo's blocklist (emailBlacklisted: true), one contact at a time.
    await api.blocklist(contact.id);
    report.actions.push({ contactId: contact.contactId, email: contact.email, action: 'unsubscribe', applied: true });
  }
  return report;
}

/** Why a contact read just now must not be written, or undefined when it may. */
function refusalOf(stored: BrevoContact | undefined, pulledEmail: string): string | undefined {
  if (!stored) return 'the contact is no longer in Brevo: nothing written';
  if (!stored.email) return 'the contact has no email address in Brevo any more: nothing written';
  if (stored.email.trim().toLowerCase() !== pulledEmail.trim().toLowerCase()) return 'the contact was given another address since it was read: nothing written (the next sync verifies the new one)';
  if (stored.emailBlacklisted) return 'the contact was blocklisted in Brevo since it was read: nothing written';
  return undefined;
}

/** `PUT /contacts/{id}` per contact: no list touched, within the contacts limiter (10 a second). */
async function writeOneByOne(api: BrevoApi, rows: Row[]): Promise<WriteFailure[]> {
  const failed: WriteFailure[] = [];
  for (const row of rows) {
    try {
      await api.updateAttributes(row.id, row.attributes);
    } catch (error) {
      // A refused key, a rate limit or an outage stops the batch (the host acts on its kind); Brevo refusing this contact's values fails this row only.
      const status = (error as { status?: number }).status;
      if (status === undefined || status === 401 || status === 403 || status === 429 || status >= 500) throw error;
      failed.push({ contactId: row.contactId, email: row.email, reason: `Brevo refused the values: ${(error as Error).message}`, retryable: false });
    }
  }
  return failed;
}

const applied = (row: Row, stored: BrevoContact | undefined) => stored !== undefined && Object.entries(row.attributes).every(([name, value]) => sameStoredValue(stored.attributes?.[name], value));

/** The import's status, or `unknown` while the 100-an-hour budget is used up (the read-backs go on meanwhile). */
async function processStatus(api: BrevoApi, processId: number): Promise<string> {
  try {
    return await api.processStatus(processId);
  } catch (error) {
    if (error instanceof RateLimitError) return 'unknown';
    throw error;
  }
}

/** One import, then read-backs (contacts endpoints, cheap) until every row shows its values or the import ends without them. */
async function importAndReadBack(api: BrevoApi, settings: BrevoSettings, listId: number, rows: Row[]): Promise<WriteFailure[]> {
  const processId = await api.importContacts(
    listId,
    rows.map((row) => ({ email: row.email, attributes: row.attributes })),
  );
  const pending = new Map(rows.map((row) => [row.id, row]));
  const deadline = Date.now() + settings.importWaitSeconds * 1000;
  let lastProcessCheck = Date.now();
  let finished = false;
  for (let attempt = 0; pending.size > 0; attempt++) {
    await sleep(READ_BACK_DELAYS_MS[Math.min(attempt, READ_BACK_DELAYS_MS.length - 1)]!);
    const read = new Map((await api.contactsByIds([...pending.keys()])).map((c) => [c.id, c] as const));
    for (const [id, row] of pending) if (applied(row, read.get(id))) pending.delete(id);
    if (pending.size === 0 || finished || Date.now() > deadline) break;
    if (Date.now() - lastProcessCheck >= Math.min(PROCESS_CHECK_EVERY_MS, settings.importWaitSeconds * 500)) {
      lastProcessCheck = Date.now();
      // Once the import says it is done, one more read-back decides: what is still missing was not applied.
      finished = ['completed', 'failed', 'cancelled'].includes(await processStatus(api, processId));
    }
  }
  return [...pending.values()].map((row) => ({
    contactId: row.contactId,
    email: row.email,
    reason: `Brevo's import ${processId} did not apply the values (it reports no per-row errors; read back after it ${finished ? 'finished' : `ran ${settings.importWaitSeconds} s`})`,
    retryable: true,
  }));
}
