import type { Config } from './config';
import type { CostView, Money } from './result-wire';

/**
 * Credits in money and the estimate in words: one place, so the CLI, the admin API and the dashboard
 * say the same thing. The engine bills one credit per address it verifies, except unknown results;
 * duplicates are verified once and fresh cached results are not bought again (ENGINE-API.md §8).
 */

/** What 1,000 credits cost, in a currency (VERIFY_HUB_PRICE_PER_1000, VERIFY_HUB_CURRENCY). */
export interface Pricing {
  pricePer1000: number;
  currency: string;
}

/** The configured price, or undefined when none is set (credits only). */
export function pricingFromConfig(config: Pick<Config, 'VERIFY_HUB_PRICE_PER_1000' | 'VERIFY_HUB_CURRENCY'>): Pricing | undefined {
  if (config.VERIFY_HUB_PRICE_PER_1000 === undefined) return undefined;
  return { pricePer1000: config.VERIFY_HUB_PRICE_PER_1000, currency: config.VERIFY_HUB_CURRENCY };
}

const SMALLEST_SHOWN = 0.01;

export const creditsText = (credits: number) => `${credits.toLocaleString('en-US')} ${credits === 1 ? 'credit' : 'credits'}`;

/** What `credits` cost at `pricing`, rounded to the cent for display (a non-zero amount under a cent reads "less than $0.01"). */
export function creditsCost(credits: number, pricing: Pricing): Money {
  // Rounded to a millionth: binary floating point would otherwise answer 0.014399999999999998 for 12 credits at 1.20.
  const amount = Number(((credits * pricing.pricePer1000) / 1000).toFixed(6));
  const format = (value: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: pricing.currency, minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
  const text = amount > 0 && amount < SMALLEST_SHOWN ? `less than ${format(SMALLEST_SHOWN)}` : format(amount);
  return { amount, currency: pricing.currency, text };
}

/** "119 credits (≈ $0.14)", or "119 credits" without a price. */
export function costText(credits: number, pricing?: Pricing): string {
  return pricing ? `${creditsText(credits)} (≈ ${creditsCost(credits, pricing).text})` : creditsText(credits);
}

/** Why the estimate is a ceiling: what the engine does not bill. */
export const FREE_RESULTS_TEXT = 'duplicates, addresses already checked recently and unknown results are free';

/**
 * The estimate as a ceiling in words: "At most 1,777 credits (≈ $2.13): duplicates, addresses already
 * checked recently and unknown results are free". Every unique address not fresh in the cache may cost
 * a credit; those the engine answers unknown will not, so the run usually costs less.
 */
export function estimateText(estimatedCredits: number, pricing?: Pricing): string {
  // Zero: every address was checked recently, or there is none to check (a column of names).
  if (estimatedCredits === 0) return `No credits: nothing left to verify (${FREE_RESULTS_TEXT})`;
  return `At most ${costText(estimatedCredits, pricing)}: ${FREE_RESULTS_TEXT}`;
}

export function estimateView(estimatedCredits: number, pricing?: Pricing): CostView {
  return { credits: estimatedCredits, ...(pricing ? { money: creditsCost(estimatedCredits, pricing) } : {}), text: estimateText(estimatedCredits, pricing) };
}

export function spentView(credits: number, pricing?: Pricing): CostView {
  return { credits, ...(pricing ? { money: creditsCost(credits, pricing) } : {}), text: costText(credits, pricing) };
}
