import { BatchVerifier, InMemoryVerificationCache, QuotaError, SharedPurchases, normalizeEmail, unknownVerification, type Verification, type Verifier } from '@verify-hub/core';

/** A verifier whose answers the test releases one address at a time, recording every purchase. */
function heldVerifier() {
  const bought: string[] = [];
  const waiting = new Map<string, { resolve: (v: Verification) => void; reject: (e: Error) => void }>();
  const verifier: Verifier = {
    verify: (email) =>
      new Promise<Verification>((resolve, reject) => {
        bought.push(email);
        waiting.set(email, { resolve, reject });
      }),
  };
  const answer = (email: string) => {
    const n = normalizeEmail(email);
    if (!n.ok) throw new Error(email);
    waiting.get(email)!.resolve({ ...unknownVerification(email, n.normalized, 'x'), risk: 'safe', reason: 'deliverable', score: 95, billable: true });
    waiting.delete(email);
  };
  const fail = (email: string, error: Error) => {
    waiting.get(email)!.reject(error);
    waiting.delete(email);
  };
  /** Resolves once the verifier has been asked for `email` (n times). */
  const asked = async (email: string, n = 1) => {
    while (bought.filter((e) => e === email).length < n) await new Promise((r) => setImmediate(r));
  };
  return { verifier, bought, answer, fail, asked };
}

describe('SharedPurchases: batches of one run running at once buy an address once', () => {
  it('a batch takes the answer of an address another batch is buying, counted as cached with no credit', async () => {
    const engine = heldVerifier();
    const shared = new SharedPurchases();
    const batch = new BatchVerifier(engine.verifier, { shared, cache: new InMemoryVerificationCache() });
    const first = batch.verifyAll(['a@example.com', 'b@example.com']);
    await engine.asked('a@example.com');
    await engine.asked('b@example.com');
    const second = batch.verifyAll(['b@example.com', 'c@example.com']);
    await engine.asked('c@example.com');
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) engine.answer(email);
    const [one, two] = await Promise.all([first, second]);
    expect(engine.bought.sort()).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(one.counters).toMatchObject({ verified: 2, credits: 2, cached: 0 });
    expect(two.counters).toMatchObject({ verified: 1, credits: 1, cached: 1 });
    expect(two.servedByOthers).toEqual(['b@example.com']);
    expect(two.results[0]).toBe(one.results[1]);
    // Nothing is held once no batch is open.
    expect(shared.size).toBe(0);
  });

  it('an address bought after a batch looked in the cache is not bought again by it', async () => {
    const engine = heldVerifier();
    const shared = new SharedPurchases();
    const cache = new InMemoryVerificationCache();
    const batch = new BatchVerifier(engine.verifier, { shared, cache, concurrency: 1 });
    const first = batch.verifyAll(['x@example.com']);
    await engine.asked('x@example.com');
    // The second batch looks in the cache now (x not there yet) and reaches x only after it was bought.
    const second = batch.verifyAll(['y@example.com', 'x@example.com']);
    await engine.asked('y@example.com');
    engine.answer('x@example.com');
    await first;
    engine.answer('y@example.com');
    const two = await second;
    expect(engine.bought).toEqual(['x@example.com', 'y@example.com']);
    expect(two.counters).toMatchObject({ verified: 1, credits: 1, cached: 1 });
    expect(shared.size).toBe(0);
  });

  it('when the buyer gets no answer (quota), the waiting batch asks itself, and both stop on the quota', async () => {
    const engine = heldVerifier();
    const shared = new SharedPurchases();
    const batch = new BatchVerifier(engine.verifier, { shared });
    const first = batch.verifyAll(['q@example.com']);
    await engine.asked('q@example.com');
    const second = batch.verifyAll(['q@example.com']);
    await new Promise((r) => setImmediate(r));
    expect(engine.bought).toEqual(['q@example.com']);
    engine.fail('q@example.com', new QuotaError('monthly quota used up', 'engine', { resetAt: Date.now() + 3_600_000 }));
    await engine.asked('q@example.com', 2);
    engine.fail('q@example.com', new QuotaError('monthly quota used up', 'engine', { resetAt: Date.now() + 3_600_000 }));
    const [one, two] = await Promise.all([first, second]);
    expect(one.stopped?.reason).toBe('quota');
    expect(two.stopped?.reason).toBe('quota');
    expect(two.pending).toEqual(['q@example.com']);
    expect(shared.size).toBe(0);
  });
});
