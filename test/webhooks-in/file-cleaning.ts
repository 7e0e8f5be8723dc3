import { BatchVerifier, EngineClient, parseScope, type ConnectionRecord, type ConnectionStore, type ContactResult } from '@verify-hub/core';
import { fileConnectorFactory, type FileConnector } from '@verify-hub/connector-file';
import type { RunCounters, RunRecord } from '@verify-hub/sync-jobs';

/** Connections in memory (the pipeline keeps them in Redis, sealed). */
export class MemoryConnectionStore implements ConnectionStore {
  readonly records = new Map<string, ConnectionRecord>();
  async get(id: string) {
    return this.records.get(id);
  }
  async save(record: ConnectionRecord) {
    this.records.set(record.id, record);
  }
  async list(platform?: string) {
    return [...this.records.values()].filter((r) => !platform || r.platform === platform);
  }
  async delete(id: string) {
    return this.records.delete(id);
  }
}

/**
 * A file run done for real, as the pipeline's workers do it: the file connector built from the stored
 * connection pages the upload, the engine (the fake engine over HTTP) verifies, the connector writes
 * the cleaned and removed files and the summary. Used as the fake RunService's `work`.
 */
export function cleanFileRun(connections: ConnectionStore, engine: { baseUrl: string; apiKey: string }) {
  return async (run: RunRecord): Promise<Partial<RunCounters>> => {
    const connection = await connections.get(run.connectionId!);
    if (!connection) throw new Error(`no connection ${run.connectionId}`);
    const connector = fileConnectorFactory(connection, { limiter: () => ({ schedule: (fn) => fn() }), saveCredentials: async () => undefined }) as FileConnector;
    const verifier = new BatchVerifier(new EngineClient({ ...engine, retries: 0 }), { concurrency: 8 });
    const counters = { pulled: 0, verified: 0, written: 0, credits: 0, unknown: 0 };
    let cursor: string | undefined;
    do {
      const page = await connector.pull(parseScope(run.scope), cursor);
      counters.pulled += page.contacts.length;
      const report = await verifier.verifyAll(page.contacts.map((c) => c.email));
      const results: ContactResult[] = page.contacts.flatMap((contact, i) => (report.results[i] ? [{ contact, verification: report.results[i]! }] : []));
      const written = await connector.write(results, { dryRun: run.options.dryRun });
      counters.verified += report.counters.verified;
      counters.unknown += report.counters.unknown;
      counters.credits += report.counters.credits;
      counters.written += written.written;
      cursor = page.next;
    } while (cursor);
    await connector.finish({ credits: counters.credits });
    return counters;
  };
}
