import { emptyLedger, LEDGER_CATEGORIES, ledgerCategory, RISKS, type LedgerCategory, type Risk } from '@verify-hub/core';
import type { Redis } from 'ioredis';
import type { ReportRow, RunBreakdown } from './contracts';
import type { Keys } from './keys';

/** Failed rows kept for the run page; the total is counted beyond it. */
export const FAILURES_KEPT = 100;

/**
 * What a batch of report rows adds to a run's breakdown: `pairs` are (field, delta) for the
 * `<run>:breakdown` hash (`risk:<risk>`, `reason:<reason>`, `failed`), `failures` the JSON of the
 * failed rows (the store keeps the first FAILURES_KEPT). Computed here, applied by the run store in
 * the same atomic step that adds the rows, so the breakdown always matches the report.
 */
export interface BreakdownDelta {
  pairs: string[];
  failures: string[];
}

type Failure = RunBreakdown['failures'][number];

/**
 * The breakdown describes each contact's latest result: a run's own row counts its risk and reason;
 * a re-check row (`recheck_*`) replaces the contact's unknown result, so it moves one count from
 * `unknown` (and from the reason it had, `priorReasons[contactId]`, when known) to its own.
 * Failures are the rows whose outcome is `failed` (a write the platform refused during the run).
 */
export function breakdownDelta(rows: readonly ReportRow[], priorReasons: Readonly<Record<string, string>> = {}): BreakdownDelta {
  const deltas = new Map<string, number>();
  const add = (field: string, n: number) => deltas.set(field, (deltas.get(field) ?? 0) + n);
  const failures: string[] = [];
  for (const row of rows) {
    if (row.outcome.startsWith('recheck_')) {
      // `failed:<reason>`: the contact's earlier write failed (it is in "failed to write", not in unknown).
      const carried = priorReasons[row.contactId];
      const priorFailed = carried?.startsWith(PRIOR_FAILED) ?? false;
      const prior = priorFailed ? carried!.slice(PRIOR_FAILED.length) : carried;
      if (row.risk) {
        add('risk:unknown', -1);
        add(`risk:${row.risk}`, 1);
        // The ledger moves the row from its category (unknown, not checked, failed to write) to its new one: never a row more.
        const from = priorFailed ? 'write_failed' : ledgerCategory('unknown', prior);
        const to = rowCategory({ ...row, outcome: row.outcome.slice('recheck_'.length) });
        add(`ledger:${from}`, -1);
        add(`ledger:${to}`, 1);
        if (from === 'unknown' && prior) add(`unknown:${prior}`, -1);
        if (to === 'unknown' && row.reason) add(`unknown:${row.reason}`, 1);
      }
      if (prior) add(`reason:${prior}`, -1);
      if (row.reason) add(`reason:${row.reason}`, 1);
      continue;
    }
    if (row.risk) add(`risk:${row.risk}`, 1);
    if (row.reason) add(`reason:${row.reason}`, 1);
    const category = rowCategory(row);
    add(`ledger:${category}`, 1);
    // The unknown rows by reason: lets the run page say why in words when one reason explains them all.
    if (category === 'unknown' && row.reason) add(`unknown:${row.reason}`, 1);
    if (row.outcome === 'failed') {
      add('failed', 1);
      if (failures.length < FAILURES_KEPT) {
        const failure: Failure = { contactId: row.contactId, email: row.email };
        if (row.error !== undefined) failure.error = row.error;
        failures.push(JSON.stringify(failure));
      }
    }
  }
  const pairs: string[] = [];
  for (const [field, n] of deltas) if (n !== 0) pairs.push(field, String(n));
  return { pairs, failures };
}

/** Marks a carried prior reason whose row's write failed (see `priorReason`). */
export const PRIOR_FAILED = 'failed:';

/** What a re-check job carries for a contact: its unknown result's reason, `failed:`-prefixed when its write failed. */
export function priorReason(row: Pick<ReportRow, 'reason' | 'outcome'>): string | undefined {
  if (!row.reason) return undefined;
  return row.outcome === 'failed' || row.outcome === 'recheck_failed' ? `${PRIOR_FAILED}${row.reason}` : row.reason;
}

/** A report row's ledger category: a failed write is "failed to write", whatever its result; else its result's category. */
export function rowCategory(row: Pick<ReportRow, 'risk' | 'reason' | 'outcome'>): LedgerCategory {
  if (row.outcome === 'failed' || row.outcome === 'recheck_failed' || !row.risk) return 'write_failed';
  return ledgerCategory(row.risk, row.reason);
}

/** Reads a run's breakdown: two Redis calls whatever the run's size (the run page polls it every second). */
export async function readBreakdown(redis: Redis, keys: Keys, runId: string): Promise<RunBreakdown> {
  const [[, counts], [, failureRows], [, [skipped, unreadable]]] = (await redis
    .multi()
    .hgetall(keys.breakdown(runId))
    .lrange(keys.failures(runId), 0, FAILURES_KEPT - 1)
    .hmget(keys.run(runId), 'n:skipped', 'n:unreadable')
    .exec()) as [[Error | null, Record<string, string>], [Error | null, string[]], [Error | null, (string | null)[]]];
  const ledger = emptyLedger();
  let hasLedger = false;
  const risk = Object.fromEntries(RISKS.map((r) => [r, 0])) as Record<Risk, number>;
  const reasons: RunBreakdown['reasons'] = [];
  const unknownReasons: Record<string, number> = {};
  for (const [field, value] of Object.entries(counts)) {
    const n = Number(value);
    if (field.startsWith('risk:')) {
      const name = field.slice('risk:'.length) as Risk;
      if (name in risk) risk[name] = Math.max(0, n);
    } else if (field.startsWith('ledger:')) {
      const name = field.slice('ledger:'.length) as LedgerCategory;
      if (name in ledger) {
        ledger[name] = Math.max(0, n);
        hasLedger = true;
      }
    } else if (field.startsWith('unknown:') && n > 0) {
      unknownReasons[field.slice('unknown:'.length)] = n;
    } else if (field.startsWith('reason:') && n > 0) {
      reasons.push({ reason: field.slice('reason:'.length), count: n });
    }
  }
  reasons.sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  // Records the source skipped were never checked (a file's rows with no address); its unreadable records are their own category.
  ledger.unreadable = Number(unreadable ?? 0);
  ledger.not_checked += Math.max(0, Number(skipped ?? 0) - ledger.unreadable);
  ledger.total = LEDGER_CATEGORIES.reduce((sum, c) => sum + ledger[c], 0);
  // The risk counts are the ledger's (a failed write or a not-checked row is not counted as a result); runs kept from before it, as stored.
  if (hasLedger) for (const r of RISKS) risk[r] = ledger[r];
  return { risk, ledger, unknownReasons, reasons, failures: failureRows.map((r) => JSON.parse(r) as Failure), failuresTotal: Number(counts.failed ?? 0) };
}
