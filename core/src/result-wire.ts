/*
 * Results, the ledger, costs and checks as the hub sends them over HTTP. Dependency-free on purpose (it
 * imports nothing): the dashboard type-checks against these very definitions (core/src/wire.ts).
 */

/** The four risks every part of the hub speaks. `unknown` is never billed and never written as `invalid`. */
export const RISKS = ['safe', 'risky', 'invalid', 'unknown'] as const;
export type Risk = (typeof RISKS)[number];

/** Opt-in actions per risk; only `invalid` may unsubscribe or archive. Never delete, never resubscribe. */
export type RiskAction = 'none' | 'unsubscribe' | 'archive';

/**
 * The one ledger of a run: every contact (a row of a file, duplicates included) lands in exactly one
 * of these, its final category (a re-check moves a row from unknown to its new one). The run page,
 * the CLI summaries, summary.json and the files are all counted from it, so they agree to the row.
 */
export const LEDGER_CATEGORIES = ['safe', 'risky', 'invalid', 'unknown', 'not_checked', 'unreadable', 'write_failed'] as const;
export type LedgerCategory = (typeof LEDGER_CATEGORIES)[number];
/** Rows per category; `total` is their sum (every row once). */
export type Ledger = Record<LedgerCategory, number> & { total: number };

/**
 * Flags a row may carry on top of its category (a role address is also safe, risky or invalid): the
 * file downloads offer a list per flag. A flag is set only when the check said yes (`true`), never for
 * "not checked".
 */
export const ROW_FLAGS = ['role', 'disposable', 'catch_all'] as const;
export type RowFlag = (typeof ROW_FLAGS)[number];

/** A ledger category with rows, in plain words (its label and one-line explanation): what the run page and the CLI show. */
export interface CategoryInWords {
  category: LedgerCategory;
  label: string;
  count: number;
  explanation: string;
}

/** One check of a result in plain words (core's `checksInWords`: the CLI's `verify`, the dashboard's single-address check). */
export interface CheckInWords {
  /** The canonical check's name (`syntax`, `mx`, `smtp`, ...). */
  check: string;
  label: string;
  /** "not checked" when the check was not made (null). */
  value: string;
  checked: boolean;
}

/** A sum of money: what `credits` cost, its currency and how people read it ("$2.13", "less than $0.01"). */
export interface Money {
  amount: number;
  currency: string;
  text: string;
}

/**
 * What an estimate or a run's spending carries for display: credits, money when the hub has a price
 * (VERIFY_HUB_PRICE_PER_1000), and the hub's words for them (core's cost.ts).
 */
export interface CostView {
  credits: number;
  money?: Money;
  text: string;
}
