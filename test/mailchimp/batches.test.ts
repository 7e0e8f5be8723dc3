import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { parseScope } from '@verify-hub/core';
import { MailchimpBatchError, readResultsArchive } from '@verify-hub/connector-mailchimp';
import { FakeMailchimp } from '../fakes/mailchimp';
import { connector, pullAll, verification } from './helpers';

const KEY = `${'3'.repeat(32)}-us9`;

async function tarGz(files: Record<string, string>): Promise<Buffer> {
  const tar = pack();
  for (const [name, text] of Object.entries(files)) tar.entry({ name }, text);
  tar.finalize();
  const parts: Buffer[] = [];
  for await (const c of tar) parts.push(c as Buffer);
  return gzipSync(Buffer.concat(parts));
}

test('the results archive is read across all its JSON files; a file that is not a result list is an error', async () => {
  const archive = await tarGz({
    'b1/': '',
    'b1/0.json': JSON.stringify([{ status_code: 204, operation_id: 'tags-1', response: '' }]),
    'b1/1.json': JSON.stringify([{ status_code: 404, operation_id: 'tags-2', response: '{"title":"Resource Not Found"}' }]),
  });
  expect((await readResultsArchive(archive)).map((r) => [r.operation_id, r.status_code])).toEqual([
    ['tags-1', 204],
    ['tags-2', 404],
  ]);
  await expect(readResultsArchive(await tarGz({ 'b2/0.json': '{"not":"a list"}' }))).rejects.toThrow(MailchimpBatchError);
});

test('a batch that does not finish in time is reported as a retryable failure naming the batch, with every member listed', async () => {
  const fake = await new FakeMailchimp({ batchStartDelayMs: 5, batchFinishDelayMs: 10_000 }).start();
  try {
    fake.addAccount(KEY, { dc: 'us9' });
    fake.addList(KEY, 'slow');
    for (const tag of ['EVRISK', 'EVDATE']) fake.addMergeField('slow', { tag, name: tag, type: 'text' });
    fake.addMergeField('slow', { tag: 'EVSCORE', name: 'EVSCORE', type: 'number' });
    fake.addMembers('slow', Array.from({ length: 30 }, (_, i) => ({ email: `s${i}@example.com` })));
    const c = connector(fake, { apiKey: KEY }, { listId: 'slow', batchPolling: { initialMs: 20, maxMs: 40, timeoutMs: 300 } });
    const [page] = await pullAll(c, parseScope('all'));
    const report = await c.write(page!.contacts.map((contact) => ({ contact, verification: verification(contact.email, 'safe') })), {});
    expect(report.written).toBe(0);
    expect(report.failed).toHaveLength(30);
    expect(report.failed.every((f) => f.retryable && /Mailchimp batch [0-9a-f]+ still (pending|started) after 0.3 s/.test(f.reason))).toBe(true);
    expect(fake.stats(KEY).poll).toBeGreaterThan(1);
  } finally {
    await fake.close();
  }
});
