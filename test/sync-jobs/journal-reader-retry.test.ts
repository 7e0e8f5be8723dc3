import { randomUUID } from 'node:crypto';
import { createLogger, RateLimitError, type EventJournal, type EventJournalEntry } from '@verify-hub/core';
import { JournalReader, createRedis, type Redis } from '@verify-hub/sync-jobs';
import { until } from '../setup/until';

/**
 * How a polling journal reader comes back after a failed read: a poller of 50 ms is not left a minute
 * behind by one refused read (the default longest wait), the waits grow while reads keep failing, and
 * a rate limit is waited out until it resets. A Klaviyo serve suite once waited past its 30 s for a
 * change because one failed read put its 1 s poller to sleep for 60 s.
 */
let redis: Redis;
const prefix = `vhtest-journal-retry-${randomUUID().slice(0, 8)}`;
const logger = createLogger({ level: 'silent' });
beforeAll(() => {
  redis = createRedis(process.env.REDIS_URL!);
});
afterAll(async () => {
  const found = await redis.keys(`${prefix}:*`);
  if (found.length) await redis.del(...found);
  await redis.quit();
});

/** A journal with one entry after the start, whose first reads fail as `failures` says; records when each read came. */
function failingJournal(failures: Array<() => Error>) {
  const readsAt: number[] = [];
  const journal: EventJournal = {
    earliest: async (): Promise<EventJournalEntry> => ({ offset: '0', events: [], uninstalled: false }),
    after: async (offset: string) => {
      readsAt.push(Date.now());
      const failure = failures.shift();
      if (failure) throw failure();
      if (offset !== '0') return undefined;
      return { offset: '1', events: [{ platform: 'test', kind: 'created', accountId: 'a', contactId: 'c1', email: 'c1@example.com', occurredAt: Date.now(), dedupeKey: 'c1' }], uninstalled: false };
    },
  };
  return { journal, readsAt };
}

function startReader(name: string, journal: EventJournal, idleMs: number) {
  const enqueued: string[] = [];
  const reader = new JournalReader({
    redis,
    offsetKey: `${prefix}:offset:${name}`,
    leaseKey: `${prefix}:lease:${name}`,
    connectionId: name,
    journal,
    enqueue: async (event) => enqueued.push(event.contactId),
    onUninstalled: async () => undefined,
    logger,
    idleMs,
  });
  reader.start();
  return { reader, enqueued };
}

describe('a journal reader after failed reads', () => {
  it('tries again after its own poll interval, doubling while reads keep failing, not after the minute-long longest wait', async () => {
    const { journal, readsAt } = failingJournal([() => new Error('socket hang up'), () => new Error('socket hang up'), () => new Error('socket hang up')]);
    const { reader, enqueued } = startReader('transient', journal, 50);
    try {
      // Before: the first failure slept 60 s, far past this wait.
      await until(() => enqueued.length === 1, 20_000, 'the entry after three failed reads');
      expect(enqueued).toEqual(['c1']);
      // Waits of 50, 100 and 200 ms (lower bounds only: a timer is never early, a loaded machine makes it late).
      const gaps = readsAt.slice(1, 4).map((at, i) => at - readsAt[i]!);
      expect(gaps[0]).toBeGreaterThanOrEqual(50 - 2);
      expect(gaps[1]).toBeGreaterThanOrEqual(100 - 2);
      expect(gaps[2]).toBeGreaterThanOrEqual(200 - 2);
    } finally {
      await reader.close();
    }
  });

  it('waits out a rate limit until it resets, longer than its poll interval', async () => {
    const { journal, readsAt } = failingJournal([() => new RateLimitError('throttled', 'platform', { resetAt: Date.now() + 600 })]);
    const { reader, enqueued } = startReader('limited', journal, 20);
    try {
      await until(() => enqueued.length === 1, 20_000, 'the entry after a rate limit');
      expect(readsAt[1]! - readsAt[0]!).toBeGreaterThanOrEqual(600 - 5);
    } finally {
      await reader.close();
    }
  });
});
