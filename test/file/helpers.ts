import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { normalizeEmail, suggestedAddress, verificationFieldValues, VerificationSchema, type Connector, type Contact, type ContactResult, type Page, type Risk, type Verification, type WriteOptions } from '@verify-hub/core';

export const FIXTURES = join(__dirname, 'fixtures');

/**
 * A tiny stand-in for the engine: the risk follows from the address's local part, so a test can
 * compute what to expect from its own input. Every result is validated by core's schema.
 */
export function fakeVerify(email: string, checkedAt = '2026-01-02T03:04:05.000Z'): Verification {
  const n = normalizeEmail(email);
  const local = n.ok ? n.localPart.toLowerCase() : '';
  const risk: Risk = !n.ok ? 'invalid' : local.startsWith('bad') ? 'invalid' : local.startsWith('info') || local.startsWith('risky') ? 'risky' : local.startsWith('unk') ? 'unknown' : 'safe';
  const smtpCheck = !n.ok ? null : { safe: 'deliverable', risky: 'deliverable', invalid: 'undeliverable', unknown: 'timeout' }[risk];
  return VerificationSchema.parse({
    email,
    normalized: n.ok ? n.normalized : email.trim(),
    score: { safe: 90, risky: 50, invalid: 5, unknown: 0 }[risk],
    risk,
    reason: { safe: 'deliverable', risky: 'role_account', invalid: n.ok ? 'mailbox_not_found' : 'syntax', unknown: 'timeout' }[risk],
    // gmial.com stands for a typo of a provider: the engine suggests the domain it probably meant.
    checks: { syntax: n.ok, mx: n.ok ? true : null, smtp: !n.ok || risk === 'unknown' ? null : risk !== 'invalid', smtpCheck, disposable: false, roleAccount: risk === 'risky', catchAll: null, freeProvider: local.endsWith('free'), spamTrapRisk: 'none', typoSuggestion: n.ok && n.normalized.endsWith('@gmial.com') ? 'gmail.com' : null },
    checkedAt,
    billable: risk !== 'unknown' && n.ok,
  });
}

export const expectedRisk = (email: string): Risk => fakeVerify(email).risk;

export const resultsFor = (contacts: Contact[]): ContactResult[] => contacts.map((contact) => ({ contact, verification: fakeVerify(contact.email) }));

export async function pullAll(connector: Connector, scope = { kind: 'file' }): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  do {
    const page = await connector.pull(scope, cursor);
    pages.push(page);
    cursor = page.next;
  } while (cursor !== undefined);
  return pages;
}

/** Pulls every page and writes each page's results as it comes (the in-process pipeline's order). */
export async function runInOrder(connector: Connector, opts: WriteOptions = {}): Promise<Page[]> {
  const pages = await pullAll(connector);
  for (const page of pages) await connector.write(resultsFor(page.contacts), opts);
  return pages;
}

export async function tempDir(): Promise<{ dir: string; file(name: string): string; copy(fixture: string): Promise<string>; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'vh-file-'));
  return {
    dir,
    file: (name) => join(dir, name),
    async copy(fixture) {
      const target = join(dir, fixture);
      await copyFile(join(FIXTURES, fixture), target);
      return target;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A CSV output read back as rows of strings (header included); `bom` tells whether it began with one. */
export async function readCsvFile(path: string, delimiter = ','): Promise<{ rows: string[][]; bom: boolean }> {
  const text = await readFile(path, 'utf8');
  return { rows: parse(text, { delimiter, bom: true }) as string[][], bom: text.startsWith('\uFEFF') };
}

export const RESULT_HEADER = ['ev_risk', 'ev_score', 'ev_reason', 'ev_disposable', 'ev_role_account', 'ev_catch_all', 'ev_free_provider', 'ev_spam_trap_risk', 'ev_checked_at', 'ev_did_you_mean'];

/** The result cells expected for a result: core's neutral field values, then the suggested address (empty when none). */
export function expectedResultCells(v: Verification): Record<string, string> {
  return { ...verificationFieldValues(v), ev_did_you_mean: suggestedAddress(v) ?? '' };
}
