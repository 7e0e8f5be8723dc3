import type { Verification } from './verification';

interface Purchase {
  answer: Promise<Verification | undefined>;
  resolve: (v: Verification | undefined) => void;
  /** The clock when the answer came (and was in the cache, when cacheable); unset while in flight. */
  settledAt?: number;
}

/**
 * The purchases of one run's batches that run at once in one process (the in-process executor's pages).
 * A batch looks in the cache once, when it starts, so an address on two pages verified side by side was
 * bought by both: a 1,500-row file whose last 500 rows repeat its first paid 1,499 credits for 1,000
 * addresses. Here a batch about to buy an address takes the answer instead when another batch is buying
 * it, or bought it after this batch looked in the cache. An answer is kept only while a batch that
 * looked before it came is still open, so memory stays at about the pages in flight.
 */
export class SharedPurchases {
  private clock = 0;
  private nextTicket = 0;
  /** Open batches, by ticket: the clock when each looked in the cache. */
  private readonly lookedAt = new Map<number, number>();
  private readonly purchases = new Map<string, Purchase>();

  /** Called by a batch just before it looks in the cache; `end` the ticket when the batch is done. */
  begin(): number {
    const ticket = ++this.nextTicket;
    this.lookedAt.set(ticket, this.clock);
    return ticket;
  }

  end(ticket: number): void {
    this.lookedAt.delete(ticket);
    const oldest = Math.min(...this.lookedAt.values());
    for (const [key, p] of this.purchases) if (p.settledAt !== undefined && p.settledAt <= oldest) this.purchases.delete(key);
  }

  /**
   * Undefined when the caller is to buy `key` (and must `settle` it); otherwise the answer of the batch
   * that is buying it or bought it since the caller looked in the cache (undefined: it got none).
   */
  claim(key: string, ticket: number): Promise<Verification | undefined> | undefined {
    const known = this.purchases.get(key);
    if (known && (known.settledAt === undefined || known.settledAt > (this.lookedAt.get(ticket) ?? Infinity))) return known.answer;
    let resolve!: Purchase['resolve'];
    const answer = new Promise<Verification | undefined>((r) => (resolve = r));
    this.purchases.set(key, { answer, resolve });
    return undefined;
  }

  /** The buyer's answer (undefined: none, the next batch to claim the address buys it). Settle once it is cached. */
  settle(key: string, verification: Verification | undefined): void {
    const purchase = this.purchases.get(key);
    if (!purchase || purchase.settledAt !== undefined) return;
    purchase.resolve(verification);
    if (verification === undefined) this.purchases.delete(key);
    else purchase.settledAt = ++this.clock;
  }

  /** Answers held (a test's view of the memory bound). */
  get size(): number {
    return this.purchases.size;
  }
}
