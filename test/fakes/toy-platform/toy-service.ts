import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAKE_KEEP_ALIVE_MS } from '../keep-alive';

/**
 * "Toy CRM", a throwaway platform's service for tests: an HTTP API over an in-memory contact list,
 * with a bearer API key, cursor paging, a batch update and signed webhooks (HMAC-SHA256 of the body
 * under the account's webhook secret, hex, in `x-toy-signature`). Only the toy platform module talks to it.
 */
export interface ToyContact {
  id: string;
  email: string;
  fields: Record<string, string>;
}

export class ToyService {
  apiKey = `toy-key-${randomBytes(8).toString('hex')}`;
  readonly account = 'acme';
  readonly webhookSecret = randomBytes(16).toString('hex');
  readonly contacts = new Map<string, ToyContact>();
  /** Batch updates received, each with the ids it changed. */
  readonly updates: string[][] = [];
  private server?: Server;
  private nextId = 1;
  url = '';

  /** The account's key is revoked: every call with it is refused (401). */
  revokeKey(): void {
    this.apiKey = `toy-key-${randomBytes(8).toString('hex')}`;
  }

  addContact(email: string): ToyContact {
    const contact = { id: String(this.nextId++), email, fields: {} };
    this.contacts.set(contact.id, contact);
    return contact;
  }

  async start(): Promise<void> {
    this.server = createServer({ keepAliveTimeout: FAKE_KEEP_ALIVE_MS }, (req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Posts a signed webhook delivery to `url`, as the service does when a contact changes. */
  async sendWebhook(url: string, events: { type: string; contactId: string; email?: string }[], secret = this.webhookSecret): Promise<Response> {
    const body = JSON.stringify({ account: this.account, events: events.map((event, i) => ({ ...event, id: `${Date.now()}-${i}`, at: Date.now() })) });
    const signature = createHmac('sha256', secret).update(body).digest('hex');
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-toy-signature': signature }, body });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) return send(401, { error: 'bad api key' });
    const url = new URL(req.url ?? '/', this.url);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;

    if (req.method === 'GET' && url.pathname === '/me') return send(200, { account: this.account, webhookSecret: this.webhookSecret });
    if (req.method === 'GET' && url.pathname === '/contacts') {
      const all = [...this.contacts.values()];
      const after = Number(url.searchParams.get('after') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 2);
      const page = all.slice(after, after + limit);
      return send(200, { contacts: page, ...(after + limit < all.length ? { next: String(after + limit) } : {}), total: all.length });
    }
    const one = /^\/contacts\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const contact = this.contacts.get(one[1]!);
      return contact ? send(200, contact) : send(404, { error: 'no such contact' });
    }
    if (req.method === 'POST' && url.pathname === '/contacts/batch-update') {
      const updates = (body as { updates: { id: string; fields: Record<string, string> }[] }).updates;
      for (const update of updates) Object.assign(this.contacts.get(update.id)?.fields ?? {}, update.fields);
      this.updates.push(updates.map((u) => u.id));
      return send(200, { updated: updates.length });
    }
    send(404, { error: 'not found' });
  }
}
