import { readFile, readdir, readlink, writeFile } from 'node:fs/promises';
import { InputError, type ConnectionRecord, type ConnectorDeps } from '@verify-hub/core';
import { FileConnector, fileConnectorFactory } from '@verify-hub/connector-file';
import { pullAll, readCsvFile, resultsFor, tempDir } from './helpers';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => (tmp = await tempDir()));
afterEach(async () => tmp.cleanup());

const deps: ConnectorDeps = { limiter: () => ({ schedule: (fn) => fn() }), saveCredentials: async () => undefined };
const connection = (settings: Record<string, unknown>): ConnectionRecord => ({ id: 'file-1', platform: 'file', label: 'a file', createdAt: new Date(0).toISOString(), credentials: {}, settings });

async function writeList(rows: number): Promise<string> {
  const input = tmp.file('list.csv');
  await writeFile(input, ['email,n', ...Array.from({ length: rows }, (_, i) => `${i % 10 === 3 ? '' : `u${i}@example.com`},${i}`)].join('\n'));
  return input;
}

/** How many of this process's file descriptors are open on `path` (Linux: /proc/self/fd). */
async function descriptorsOn(path: string): Promise<number> {
  const fds = await readdir('/proc/self/fd');
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
  return targets.filter((target) => target === path).length;
}

describe('FileConnector', () => {
  it('is built by the factory from a connection’s settings, with the defaults next to the input', async () => {
    const input = await writeList(5);
    const connector = fileConnectorFactory(connection({ input, remove: ['invalid', 'risky'] }), deps) as FileConnector;
    expect(connector.platform).toBe('file');
    expect(connector.options).toMatchObject({ output: tmp.file('list.cleaned.csv'), removedOutput: tmp.file('list.removed.csv'), summaryOutput: tmp.file('list.summary.json'), maxRows: 50_000, pageSize: 1_000 });
    expect([...connector.options.remove]).toEqual(['invalid', 'risky']);
  });

  it.each([
    [{}, 'input'],
    [{ input: 'x.csv', remove: ['safe'] }, 'remove.0'],
    [{ input: 'x.csv', maxRows: 0 }, 'maxRows'],
    [{ input: 'x.csv', pageSize: 1.5 }, 'pageSize'],
    [{ input: 'x.pdf' }, 'input'],
    [{ input: 'x.csv', output: 'y.xlsx' }, 'output'],
    [{ input: 'x.csv', output: 'x.csv' }, 'output'],
  ])('refuses bad options %j naming the field', (settings, field) => {
    let error: unknown;
    try {
      fileConnectorFactory(connection(settings), deps);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).field).toBe(field);
  });

  it('checks in ensureSchema() that the input is readable and the outputs writable', async () => {
    const input = await writeList(2);
    expect(await new FileConnector({ input }).ensureSchema()).toEqual({ created: [], existing: [input], problems: [] });
    const missing = await new FileConnector({ input: tmp.file('nope.csv') }).ensureSchema();
    expect(missing.problems).toEqual([expect.stringMatching(/^input: cannot read .*nope\.csv \(ENOENT\)/)]);
    const noDir = await new FileConnector({ input, output: tmp.file('missing/out.csv') }).ensureSchema();
    expect(noDir.problems).toEqual([expect.stringMatching(/^output: cannot write/)]);
  });

  it('reports a missing input as an input error', async () => {
    await expect(new FileConnector({ input: tmp.file('nope.csv') }).inspect()).rejects.toMatchObject({ field: 'input', message: expect.stringMatching(/does not exist/) });
  });

  it('pages with cursors; a new instance resumes from a cursor with the same pages', async () => {
    const input = await writeList(95);
    const pages = await pullAll(new FileConnector({ input, pageSize: 10 }));
    expect(pages.length).toBe(10);
    expect(pages.map((p) => p.next)).toEqual(['10', '20', '30', '40', '50', '60', '70', '80', '90', undefined]);
    // A connector left mid-file is aborted, which closes its input (left to the GC, Node warns).
    const resumer = new FileConnector({ input, pageSize: 10 });
    const resumed = await resumer.pull({ kind: 'file' }, '40');
    await resumer.abort();
    expect(resumed).toEqual(pages[4]);
    expect(pages.reduce((n, p) => n + p.contacts.length + (p.skipped?.no_email ?? 0), 0)).toBe(95);
    expect(await new FileConnector({ input }).pull({ kind: 'file' }, '1000')).toEqual({ contacts: [], skipped: { no_email: 0, unparseable: 0 } });
  });

  it('takes concurrent pulls one at a time', async () => {
    const input = await writeList(40);
    const sequential = await pullAll(new FileConnector({ input, pageSize: 10 }));
    const connector = new FileConnector({ input, pageSize: 10 });
    const concurrent = await Promise.all(['0', '10', '20', '30'].map((cursor) => connector.pull({ kind: 'file' }, cursor)));
    await connector.abort();
    expect(concurrent).toEqual(sequential);
  });

  it('ends on the last full page without an extra empty page', async () => {
    const input = await writeList(20);
    const pages = await pullAll(new FileConnector({ input, pageSize: 10 }));
    expect(pages.map((p) => p.next)).toEqual(['10', undefined]);
  });

  it('refuses another scope and a bad cursor', async () => {
    const input = await writeList(2);
    const connector = new FileConnector({ input });
    await expect(connector.pull({ kind: 'list', value: '1' })).rejects.toMatchObject({ field: 'scope' });
    await expect(connector.pull({ kind: 'file' }, 'abc')).rejects.toMatchObject({ field: 'cursor' });
  });

  it('writes a run pulled by another instance (the writer reads the input itself)', async () => {
    const input = await writeList(30);
    const contacts = (await pullAll(new FileConnector({ input, pageSize: 7 }))).flatMap((p) => p.contacts);
    const writer = new FileConnector({ input });
    await writer.write(resultsFor(contacts), {});
    const summary = await writer.finish();
    expect(summary.rows).toBe(30);
    const out = await readCsvFile(summary.output);
    expect(out.rows.slice(1).map((r) => r[1])).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));
  });

  it('takes the run’s credit figure over its own count, and writes it to the summary file', async () => {
    const input = await writeList(5);
    const connector = new FileConnector({ input });
    await connector.write(resultsFor((await pullAll(connector)).flatMap((p) => p.contacts)), {});
    const summary = await connector.finish({ credits: 1 });
    expect(summary.credits).toBe(1);
    expect(JSON.parse(await readFile(summary.summaryOutput, 'utf8')).credits).toBe(1);
  });

  it('fails the run with the write error when an output cannot be written, leaving nothing under the real name', async () => {
    const input = await writeList(5);
    const output = tmp.file('missing-dir/out.csv');
    const connector = new FileConnector({ input, output });
    const contacts = (await pullAll(connector)).flatMap((p) => p.contacts);
    const outcome = await connector
      .write(resultsFor(contacts), {})
      .then(() => connector.finish())
      .catch((e: unknown) => e);
    expect(outcome).toMatchObject({ code: 'ENOENT' });
    await expect(readFile(output)).rejects.toMatchObject({ code: 'ENOENT' });
    // The second read of the input (the one the outputs are written from) is closed with the failed
    // write, not left to the GC (which closes it with a warning, whenever it runs).
    expect(await descriptorsOn(input)).toBe(0);
  });
});
