import {
  InputError,
  VerifyHubError,
  changedValues,
  platformErrorKinds,
  type ConnectionRecord,
  type ConnectorDeps,
  type CallLimiter,
  type Connector,
  type Contact,
  type ContactResult,
  type Page,
  type SchemaReport,
  type Scope,
  type Verification,
  type WriteReport,
} from '@verify-hub/core';
import type { ToyContact } from './toy-service';

/** The toy platform's failure kinds, from core's one place: a refused key pauses its runs. */
export const ToyErrors = platformErrorKinds('toy');

/** What the toy platform stores for a verification (its write-back mapping). */
export const TOY_FIELD_NAMES = { risk: 'ev_risk', score: 'ev_score' };
export function toyFields(verification: Verification, names = TOY_FIELD_NAMES): Record<string, string> {
  return { [names.risk]: verification.risk, [names.score]: String(Math.round(verification.score)) };
}

/** Calls the Toy CRM API with the connection's key; 401 is an auth error, other failures name the call. */
export async function toyCall<T>(baseUrl: string, apiKey: string, path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' } });
  if (response.status === 401) throw new ToyErrors.AuthError('Toy CRM refused the API key: connect it again', { status: 401 });
  if (!response.ok) throw new VerifyHubError(`Toy CRM answered ${response.status} to ${init.method ?? 'GET'} ${path.split('?')[0]}`, { status: response.status });
  return (await response.json()) as T;
}

const asContact = (contact: ToyContact): Contact => ({ id: contact.id, email: contact.email, current: contact.fields });

export class ToyConnector implements Connector {
  readonly platform = 'toy';
  private readonly limiter: CallLimiter;
  constructor(private readonly connection: ConnectionRecord, deps: ConnectorDeps) {
    this.limiter = deps.limiter({ key: `toy:${connection.id}`, maxConcurrent: 2 });
  }

  private call<T>(path: string, init?: RequestInit): Promise<T> {
    const baseUrl = String(this.connection.settings?.baseUrl ?? '');
    return this.limiter.schedule(() => toyCall<T>(baseUrl, String(this.connection.credentials.apiKey), path, init));
  }

  async ensureSchema(): Promise<SchemaReport> {
    return { created: [], existing: Object.values(TOY_FIELD_NAMES), problems: [] };
  }

  checkScope(scope: Scope): void {
    checkToyScope(scope);
  }

  async pull(_scope: Scope, cursor?: string): Promise<Page> {
    const page = await this.call<{ contacts: ToyContact[]; next?: string }>(`/contacts?limit=2${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`);
    return { contacts: page.contacts.map(asContact), ...(page.next ? { next: page.next } : {}) };
  }

  async pullByIds(ids: string[]): Promise<Contact[]> {
    const found: Contact[] = [];
    for (const id of ids) {
      try {
        found.push(asContact(await this.call<ToyContact>(`/contacts/${encodeURIComponent(id)}`)));
      } catch (error) {
        if (!(error instanceof VerifyHubError && error.status === 404)) throw error;
      }
    }
    return found;
  }

  async write(results: ContactResult[], opts: { dryRun?: boolean }): Promise<WriteReport> {
    const report: WriteReport = { written: 0, unchanged: [], failed: [] };
    const updates: { id: string; fields: Record<string, string> }[] = [];
    for (const { contact, verification } of results) {
      const fields = changedValues(contact.current, toyFields(verification));
      if (Object.keys(fields).length === 0) report.unchanged.push(contact.id);
      else updates.push({ id: contact.id, fields });
    }
    if (updates.length && !opts.dryRun) await this.call('/contacts/batch-update', { method: 'POST', body: JSON.stringify({ updates }) });
    report.written = updates.length;
    return report;
  }
}

/** The toy platform reads everything: `all` is its only scope. */
export function checkToyScope(scope: Scope): void {
  if (scope.kind !== 'all') throw new InputError('scope', 'the toy platform reads `all` only');
}
