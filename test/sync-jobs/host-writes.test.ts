import { QuotaError, TransientError, type Connector, type ContactResult, type WriteReport } from '@verify-hub/core';
import { processChunk } from '../../sync-jobs/src/chunk-processor';
import { InProcessFakeVerifier } from '../fakes/source/fake-verifier';

/** A connector that records each write's size and fails the first `failures` calls with `error()`. */
function connectorFailing(failures: number, error: () => Error) {
  const sizes: number[] = [];
  let calls = 0;
  const connector = {
    platform: 'busy',
    ensureSchema: async () => ({ created: [], existing: [], problems: [] }),
    pull: async () => ({ contacts: [] }),
    write: async (results: ContactResult[]): Promise<WriteReport> => {
      sizes.push(results.length);
      if (++calls <= failures) throw error();
      return { written: results.length, unchanged: [], failed: [] };
    },
  } as Connector;
  return { connector, sizes };
}

const contacts = Array.from({ length: 7 }, (_, i) => ({ id: String(i), email: `c${i}@example.com` }));
const chunk = (connector: Connector) =>
  processChunk({ contacts, writeOptions: {}, whenStopped: 'return' }, { connector, verifier: new InProcessFakeVerifier(), writeBatchSize: 3, transientRetryMs: 1 });

describe("the pipeline's write layer (host batching and one retry)", () => {
  it("writes in the platform's batch size and tries a transient failure once more", async () => {
    const { connector, sizes } = connectorFailing(1, () => new TransientError('503', 'busy'));
    const outcome = await chunk(connector);
    expect(outcome.counters.written).toBe(7);
    expect(sizes).toEqual([3, 3, 3, 1]);
  });

  it('throws a second transient failure of the same batch to the job layer (once per layer)', async () => {
    const { connector, sizes } = connectorFailing(2, () => new TransientError('503', 'busy'));
    await expect(chunk(connector)).rejects.toThrow(TransientError);
    expect(sizes).toEqual([3, 3]);
  });

  it('never retries a quota: it goes to the job layer at once (the run pauses until its reset)', async () => {
    const { connector, sizes } = connectorFailing(1, () => new QuotaError('daily limit', 'busy', { resetAt: Date.now() + 1000 }));
    await expect(chunk(connector)).rejects.toThrow(QuotaError);
    expect(sizes).toEqual([3]);
  });
});

describe('contacts a connector reports failed as retryable', () => {
  /** A connector that reports `busy` contacts failed (retryable) on their first `times` writes, and `bad` always (not retryable). */
  function partlyBusy(busy: Map<string, number>, bad: Set<string>) {
    const sent: string[][] = [];
    const connector = {
      platform: 'busy',
      ensureSchema: async () => ({ created: [], existing: [], problems: [] }),
      pull: async () => ({ contacts: [] }),
      write: async (results: ContactResult[]): Promise<WriteReport> => {
        sent.push(results.map((r) => r.contact.id));
        const failed = results.flatMap(({ contact }) => {
          if (bad.has(contact.id)) return [{ contactId: contact.id, email: contact.email, reason: 'refused', retryable: false }];
          const left = busy.get(contact.id) ?? 0;
          busy.set(contact.id, left - 1);
          return left > 0 ? [{ contactId: contact.id, email: contact.email, reason: 'busy', retryable: true }] : [];
        });
        return { written: results.length - failed.length, unchanged: [], failed };
      },
    } as Connector;
    return { connector, sent };
  }

  it('sends them alone once more: written when the platform took them, still reported when it did not', async () => {
    const { connector, sent } = partlyBusy(new Map([['1', 1], ['2', 5]]), new Set(['4']));
    const outcome = await chunk(connector);
    expect(sent).toEqual([['0', '1', '2'], ['1', '2'], ['3', '4', '5'], ['6']]);
    expect(outcome.counters.written).toBe(5);
    expect(outcome.failures.map((f) => [f.contactId, f.retryable]).sort()).toEqual([['2', true], ['4', false]]);
  });

  it('never sends them again on a dry run', async () => {
    const { connector, sent } = partlyBusy(new Map([['1', 1]]), new Set());
    await processChunk({ contacts, writeOptions: { dryRun: true }, whenStopped: 'return' }, { connector, verifier: new InProcessFakeVerifier(), writeBatchSize: 3, transientRetryMs: 1 });
    expect(sent).toHaveLength(3);
  });
});
