import type { IncomingMessage, ServerResponse } from 'node:http';
import { fromCsv, toCsv } from './fake-csv';
import type { FakeSalesforce, SObjectType } from './fake-salesforce';

/**
 * Bulk API 2.0 of the fake Salesforce. Query jobs: created with a SOQL query, `UploadComplete` then
 * `InProgress` until polled `pollsBeforeComplete` times, then `JobComplete`; results as CSV pages of at
 * most `maxRecords`, the next page named by the `Sforce-Locator` header (`null` on the last). Ingest
 * jobs (update): created `Open`, CSV uploaded to `batches`, closed with `UploadComplete`, processed
 * when polled, then each record in `successfulResults`, `failedResults` (with `sf__Error`) or
 * `unprocessedrecords` (`stopAfter` records processed, the job `Failed`).
 */
interface QueryJob {
  id: string;
  object: string;
  state: string;
  polls: number;
  fields: string[];
  rows: Record<string, unknown>[];
}
interface IngestJob {
  id: string;
  object: SObjectType;
  state: string;
  polls: number;
  csv: string;
  successful: Record<string, string>[];
  failed: Record<string, string>[];
  unprocessed: Record<string, string>[];
}

/** Bulk CSV's DateTime: UTC with Z. */
const csvValue = (value: unknown) => (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T[\d:.]+\+0000$/.test(value) ? value.replace('+0000', 'Z') : value);

export class FakeBulk {
  pollsBeforeComplete = 2;
  /** An ingest job processes only this many records, then fails leaving the rest unprocessed. */
  stopAfter?: number;
  readonly queryJobs = new Map<string, QueryJob>();
  readonly ingestJobs = new Map<string, IngestJob>();
  /** Records in each ingest job, in order. */
  readonly ingestSizes: number[] = [];

  constructor(private readonly org: FakeSalesforce) {}

  handle(method: string, path: string, url: URL, body: string, _req: IncomingMessage, res: ServerResponse): void {
    const json = (status: number, answer: unknown) => this.org.json(res, status, answer);
    const notFound = () => json(404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
    if (method === 'POST' && path === '/jobs/query') {
      const input = JSON.parse(body) as { operation?: string; query?: string };
      if (input.operation !== 'query' || !input.query) return json(400, [{ errorCode: 'INVALIDJOB', message: 'operation query and a query are required' }]);
      if (/\bORDER BY\b/i.test(input.query) && /\bOFFSET\b/i.test(input.query)) return json(400, [{ errorCode: 'INVALIDJOB', message: 'OFFSET is not supported' }]);
      const answer = this.org.runQuery(input.query);
      if ('error' in answer) return json(400, [{ errorCode: answer.errorCode, message: answer.error }]);
      const job: QueryJob = { id: this.org.newId('750'), object: /FROM\s+(\w+)/i.exec(input.query)![1]!, state: 'UploadComplete', polls: 0, fields: answer.fields, rows: answer.rows };
      this.queryJobs.set(job.id, job);
      return json(200, this.queryInfo(job));
    }
    const query = /^\/jobs\/query\/(750\w+)(\/results)?$/.exec(path);
    if (query) {
      const job = this.queryJobs.get(query[1]!);
      if (!job) return notFound();
      if (!query[2]) {
        job.polls++;
        job.state = job.polls >= this.pollsBeforeComplete ? 'JobComplete' : 'InProgress';
        return json(200, this.queryInfo(job));
      }
      if (job.state !== 'JobComplete') return json(400, [{ errorCode: 'INVALIDJOBSTATE', message: 'the job is not complete' }]);
      const max = Math.max(1, Number(url.searchParams.get('maxRecords') ?? 10_000));
      const offset = url.searchParams.has('locator') ? Number(Buffer.from(url.searchParams.get('locator')!, 'base64url').toString()) : 0;
      const page = job.rows.slice(offset, offset + max).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, csvValue(v)])));
      const next = offset + max < job.rows.length ? Buffer.from(String(offset + max)).toString('base64url') : 'null';
      return this.org.csv(res, toCsv(job.fields, page), { 'Sforce-Locator': next, 'Sforce-NumberOfRecords': String(page.length) });
    }
    if (method === 'POST' && path === '/jobs/ingest') {
      const input = JSON.parse(body) as { object?: SObjectType; operation?: string };
      if (input.operation !== 'update' || !input.object) return json(400, [{ errorCode: 'INVALIDJOB', message: 'the fake takes update jobs' }]);
      const job: IngestJob = { id: this.org.newId('750'), object: input.object, state: 'Open', polls: 0, csv: '', successful: [], failed: [], unprocessed: [] };
      this.ingestJobs.set(job.id, job);
      return json(200, { ...this.ingestInfo(job), contentUrl: `services/data/v62.0/jobs/ingest/${job.id}/batches` });
    }
    const ingest = /^\/jobs\/ingest\/(750\w+)(\/batches|\/successfulResults|\/failedResults|\/unprocessedrecords)?\/?$/.exec(path);
    if (!ingest) return notFound();
    const job = this.ingestJobs.get(ingest[1]!);
    if (!job) return notFound();
    const part = ingest[2];
    if (part === '/batches' && method === 'PUT') {
      if (job.state !== 'Open') return json(400, [{ errorCode: 'INVALIDJOBSTATE', message: 'the job is not open' }]);
      job.csv += body;
      res.writeHead(201, { 'content-type': 'application/json' });
      return void res.end();
    }
    if (!part && method === 'PATCH') {
      const state = (JSON.parse(body) as { state?: string }).state;
      if (state === 'UploadComplete' && job.state === 'Open') job.state = 'UploadComplete';
      else if (state === 'Aborted') job.state = 'Aborted';
      return json(200, this.ingestInfo(job));
    }
    if (!part && method === 'GET') {
      if (job.state === 'UploadComplete' || job.state === 'InProgress') {
        job.polls++;
        if (job.polls >= this.pollsBeforeComplete) this.process(job);
        else job.state = 'InProgress';
      }
      return json(200, this.ingestInfo(job));
    }
    if (job.state !== 'JobComplete' && job.state !== 'Failed') return json(400, [{ errorCode: 'INVALIDJOBSTATE', message: 'the job is not complete' }]);
    const fields = Object.keys(fromCsv(job.csv)[0] ?? { Id: '' });
    if (part === '/successfulResults') return this.org.csv(res, toCsv(['sf__Id', 'sf__Created', ...fields], job.successful));
    if (part === '/failedResults') return this.org.csv(res, toCsv(['sf__Id', 'sf__Error', ...fields], job.failed));
    return this.org.csv(res, toCsv(fields, job.unprocessed));
  }

  private process(job: IngestJob): void {
    const rows = fromCsv(job.csv);
    this.ingestSizes.push(rows.length);
    rows.forEach((row, index) => {
      if (this.stopAfter !== undefined && index >= this.stopAfter) {
        job.unprocessed.push(row);
        return;
      }
      const { Id, ...fields } = row;
      const error = this.org.update(job.object, Id ?? '', fields);
      if (error) job.failed.push({ sf__Id: '', sf__Error: error, ...row });
      else job.successful.push({ sf__Id: Id ?? '', sf__Created: 'false', ...row });
    });
    job.state = job.unprocessed.length ? 'Failed' : 'JobComplete';
  }

  private queryInfo(job: QueryJob) {
    return { id: job.id, operation: 'query', object: job.object, state: job.state, concurrencyMode: 'Parallel', contentType: 'CSV', apiVersion: 62.0, lineEnding: 'LF', columnDelimiter: 'COMMA', numberRecordsProcessed: job.state === 'JobComplete' ? job.rows.length : 0 };
  }

  private ingestInfo(job: IngestJob) {
    return { id: job.id, operation: 'update', object: job.object, state: job.state, contentType: 'CSV', apiVersion: 62.0, lineEnding: 'LF', columnDelimiter: 'COMMA', numberRecordsProcessed: job.successful.length + job.failed.length, numberRecordsFailed: job.failed.length };
  }
}
