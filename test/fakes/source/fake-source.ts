import { changedValues, verificationFieldValues, type Connector, type Contact, type ContactResult, type Page, type SchemaReport, type Scope, type WriteOptions, type WriteReport } from '@verify-hub/core';

/**
 * A paged source `Connector` for tests and benches: `size` contacts (20,000 .. 1,000,000) generated on
 * demand from their index, so a million costs no memory until written. It stores what is written the
 * way a CRM does (HubSpot property strings) and hands the stored values back on the next pull, so a
 * write whose values did not change is skipped exactly as on a real platform.
 */
export interface FakeSourceOptions {
  size: number;
  pageSize?: number;
  /** Address of contact i; default `user<i>@example.com`, with every `invalidEvery`-th etc. marked for the fake engine. */
  emailOf?: (i: number) => string;
  invalidEvery?: number;
  riskyEvery?: number;
  unknownEvery?: number;
  /** Keep what is written (needed to skip unchanged writes and count writes per contact); default true. */
  track?: boolean;
  pullLatencyMs?: number;
  writeLatencyMs?: number;
}

export class FakeSource implements Connector {
  readonly platform = 'fake';
  readonly pageSize: number;
  /** Contacts whose values were written, counted per contact id (when tracking). */
  readonly writeCounts = new Map<string, number>();
  private readonly stored = new Map<string, Record<string, string>>();
  pulls = 0;
  writeCalls = 0;
  written = 0;
  unchanged = 0;
  schemaCalls = 0;

  constructor(readonly options: FakeSourceOptions) {
    this.pageSize = options.pageSize ?? 100;
  }

  emailOf(i: number): string {
    if (this.options.emailOf) return this.options.emailOf(i);
    const { invalidEvery, riskyEvery, unknownEvery } = this.options;
    if (unknownEvery && i % unknownEvery === unknownEvery - 1) return `unknown.${i}@example.com`;
    if (invalidEvery && i % invalidEvery === invalidEvery - 1) return `invalid.${i}@example.com`;
    if (riskyEvery && i % riskyEvery === riskyEvery - 1) return `risky.${i}@example.com`;
    return `user${i}@example.com`;
  }

  contact(i: number): Contact {
    const id = `c${i}`;
    const current = this.stored.get(id);
    return current ? { id, email: this.emailOf(i), current: { ...current } } : { id, email: this.emailOf(i) };
  }

  async ensureSchema(): Promise<SchemaReport> {
    this.schemaCalls++;
    return { created: [], existing: ['ev_risk', 'ev_score'], problems: [] };
  }

  async pull(_scope: Scope, cursor?: string): Promise<Page> {
    this.pulls++;
    if (this.options.pullLatencyMs) await new Promise((r) => setTimeout(r, this.options.pullLatencyMs));
    const start = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isInteger(start) || start < 0) throw new Error(`bad cursor ${cursor}`);
    const end = Math.min(this.options.size, start + this.pageSize);
    const contacts: Contact[] = [];
    for (let i = start; i < end; i++) contacts.push(this.contact(i));
    return end < this.options.size ? { contacts, next: String(end) } : { contacts };
  }

  async pullByIds(ids: string[]): Promise<Contact[]> {
    return ids.map((id) => Number(id.slice(1))).filter((i) => Number.isInteger(i) && i >= 0 && i < this.options.size).map((i) => this.contact(i));
  }

  async write(results: ContactResult[], opts: WriteOptions): Promise<WriteReport> {
    this.writeCalls++;
    if (this.options.writeLatencyMs) await new Promise((r) => setTimeout(r, this.options.writeLatencyMs));
    const report: WriteReport = { written: 0, unchanged: [], failed: [] };
    const track = this.options.track ?? true;
    for (const { contact, verification } of results) {
      const desired = verificationFieldValues(verification);
      // Compared with what the platform holds now, as a CRM connector compares with the pulled values.
      const changed = changedValues(track ? this.stored.get(contact.id) : contact.current, desired);
      if (Object.keys(changed).length === 0) {
        report.unchanged.push(contact.id);
        continue;
      }
      report.written++;
      if (opts.dryRun) continue;
      if (track) {
        this.stored.set(contact.id, desired);
        this.writeCounts.set(contact.id, (this.writeCounts.get(contact.id) ?? 0) + 1);
      }
    }
    this.written += report.written;
    this.unchanged += report.unchanged.length;
    return report;
  }

  /** What the platform holds for a contact now. */
  storedFor(id: string): Record<string, string> | undefined {
    return this.stored.get(id);
  }
}
