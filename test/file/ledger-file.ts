import type { Ledger } from '@verify-hub/core';

/** The known truth of `ledgerFileText()`: each row's final category, with and without a credit limit. */
export const LEDGER_FILE_ROWS = 2000;
/** Billable addresses of the first page (rows 1-1,000): 400 safe, 100 risky, 80 invalid (unknowns cost nothing). */
export const LEDGER_FIRST_PAGE_CREDITS = 580;
/** Tail rows (the second page: 999 distinct safe addresses) a limit of LEDGER_FIRST_PAGE_CREDITS + 250 still verifies. */
export const LEDGER_TAIL_VERIFIED = 250;

/**
 * 2,000 data lines for the fake engine (it answers by local part: `risky`, `invalid`, `unknown`, else safe):
 * rows 1-400 safe, 401-500 risky, 501-580 invalid, 581-780 unknown; 781-830 repeat safe addresses and
 * 831-880 invalid ones; 881-930 have no address; 931-990 are not addresses (invalid, rejected locally);
 * 991-1,000 repeat unknown ones; a record with a field too many after row 500 cannot be read; then 999 distinct safe
 * addresses (the second page of 1,000 rows), which a credit limit leaves partly not checked.
 */
export function ledgerFileText(): string {
  const lines = ['name,email'];
  const add = (name: string, email: string) => lines.push(`${name},${email}`);
  for (let r = 1; r <= 1000; r++) {
    if (r <= 400) add(`Safe ${r}`, `s${r}@example.com`);
    else if (r <= 500) add(`Risky ${r}`, `risky${r}@example.com`);
    else if (r <= 580) add(`Invalid ${r}`, `invalid${r}@example.com`);
    else if (r <= 780) add(`Unknown ${r}`, `unknown${r}@example.com`);
    else if (r <= 830) add(`Repeat ${r}`, `s${r - 780}@example.com`);
    else if (r <= 880) add(`Repeat ${r}`, `invalid${r - 330}@example.com`);
    else if (r <= 930) add(`No address ${r}`, '');
    else if (r <= 990) add(`Malformed ${r}`, `not-an-address-${r}`);
    else add(`Repeat ${r}`, `unknown${r - 410}@example.com`);
    if (r === 500) lines.push(`Broken,broken@example.com,a field too many`);
  }
  for (let t = 1; t <= 999; t++) add(`Tail ${t}`, `t${t}@example.com`);
  return lines.join('\n') + '\n';
}

/** The ledger the file must give when `tail` of the 999 tail rows were verified (the rest not checked): every row in exactly one category. */
export function ledgerTruth(tail: number): Ledger {
  const ledger = { safe: 400 + 50 + tail, risky: 100, invalid: 80 + 50 + 60, unknown: 200 + 10, not_checked: 50 + (999 - tail), unreadable: 1, write_failed: 0 };
  return { ...ledger, total: Object.values(ledger).reduce((a, b) => a + b, 0) };
}

/**
 * Each data row of ledgerFileText() in input order with its known category under the fake engine (risk
 * by the local part's first word; not an address: invalid; no address: not checked) and its flags (the
 * fake engine's risky answers are catch-all domains), every tail row verified. The broken record is not a row.
 */
export function ledgerFileRows(): { name: string; category: string; flags: string[] }[] {
  const rows: { name: string; category: string; flags: string[] }[] = [];
  for (const line of ledgerFileText().trim().split('\n').slice(1)) {
    const cells = line.split(',');
    if (cells.length !== 2) continue;
    const [name, email] = cells as [string, string];
    const local = email.split('@')[0]!;
    const category = email === '' ? 'not_checked' : !email.includes('@') ? 'invalid' : (['risky', 'invalid', 'unknown'].find((r) => local.startsWith(r)) ?? 'safe');
    rows.push({ name, category, flags: category === 'risky' ? ['catch_all'] : [] });
  }
  return rows;
}
