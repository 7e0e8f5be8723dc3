import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/**
 * Salesforce's Streaming API as Change Data Capture uses it: a Bayeux (CometD) server over HTTP
 * long-polling at `/cometd/<version>`, as jsforce's streaming client (Faye) speaks to it.
 *
 * - `/meta/handshake` needs `Authorization: OAuth <token>` (or Bearer): a refused token answers
 *   `403::Handshake denied` with `ext.sfdc.failureReason` `401::Authentication invalid` and advice
 *   `reconnect: none`, as Salesforce does. The answer carries `ext.replay: true`.
 * - `/meta/connect` is held until an event is due to the client or `holdMs` passes (a client's first
 *   connect is answered at once, as CometD does); in a batch, the other messages are answered first and
 *   the reply waits for the connect. An unknown client
 *   id answers `403::Unknown client` with advice `handshake` (Faye then handshakes and subscribes again).
 * - `/meta/subscribe` reads the replay extension (`ext.replay: { <channel>: <replayId> }`): -1 new events
 *   only (also without the extension), -2 every retained event, an id the events after it. An id older
 *   than the retention answers `400::The replayId {id} you provided was invalid...`. An org without
 *   Change Data Capture (Professional Edition) answers `400::The channel you requested to subscribe to
 *   does not exist {/data/...}`.
 * - Events are Salesforce's CDC documents: `{ schema, payload: { ChangeEventHeader, <fields> }, event:
 *   { replayId } }`, the header with entityName, recordIds, changeType, changeOrigin, transactionKey,
 *   sequenceNumber, commitTimestamp, commitNumber, commitUser, nulledFields, diffFields, changedFields.
 *   Replay ids grow per channel; the newest `retain` events of each channel are kept for replay.
 */

export type ChangeType = 'CREATE' | 'UPDATE' | 'DELETE' | 'UNDELETE' | 'GAP_CREATE' | 'GAP_UPDATE' | 'GAP_DELETE' | 'GAP_UNDELETE' | 'GAP_OVERFLOW';

export interface PublishedChange {
  entityName: 'Contact' | 'Lead';
  changeType: ChangeType;
  recordIds: string[];
  /** The fields' new values (UPDATE: the changed ones; CREATE: every non-null one). */
  fields?: Record<string, unknown>;
  /** Defaults to the keys of `fields` plus LastModifiedDate. */
  changedFields?: string[];
  commitUser?: string;
  /** `com/salesforce/api/rest/62.0` for an API write; `;client=<id>` when the caller sent Sforce-Call-Options. */
  changeOrigin?: string;
  commitTimestamp?: number;
}

export interface FakeStreamingOptions {
  /** Tokens accepted at handshake (a function lets a test revoke one). */
  acceptToken?: (token: string) => boolean;
  /** False: an edition without Change Data Capture (Professional). */
  changeDataCapture?: boolean;
  /** Events kept per channel for replay (Salesforce keeps 72 hours). */
  retain?: number;
  /** How long a `/meta/connect` is held without events (Salesforce: 110 s). */
  holdMs?: number;
}

interface StoredEvent {
  channel: string;
  replayId: number;
  data: unknown;
}

interface Client {
  id: string;
  /** CometD answers a client's first connect at once (it only establishes the connection). */
  connected: boolean;
  channels: Set<string>;
  queue: unknown[];
  wake?: () => void;
}

export interface RecordedMessage {
  channel: string;
  clientId?: string;
  subscription?: string;
  replay?: unknown;
  successful: boolean;
  error?: string;
}

const CHANNELS = { Contact: '/data/ContactChangeEvent', Lead: '/data/LeadChangeEvent' } as const;

export class FakeStreaming {
  /** Every meta message answered, in order (handshakes, subscriptions with their replay ids, ...). */
  readonly messages: RecordedMessage[] = [];
  private readonly clients = new Map<string, Client>();
  private readonly retained = new Map<string, StoredEvent[]>();
  private readonly nextReplay = new Map<string, number>();
  private server?: Server;
  private transaction = 0;
  private inFlight = 0;
  changeDataCapture: boolean;

  constructor(private readonly options: FakeStreamingOptions = {}) {
    this.changeDataCapture = options.changeDataCapture ?? true;
  }

  /** Listens on loopback; the CometD endpoint is `<url>/cometd/<version>` (the org's instance URL is `url`). */
  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      if (req.method === 'POST' && /^\/cometd\/\d+\.\d+\/?$/.test(new URL(req.url ?? '/', 'http://x').pathname)) void this.handle(req, res);
      else res.writeHead(404, { 'content-type': 'application/json' }).end('[{"errorCode":"NOT_FOUND","message":"The requested resource does not exist"}]');
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** Publishes a change event on its entity's channel; returns its replay id. */
  publish(change: PublishedChange): number {
    const channel = CHANNELS[change.entityName];
    const replayId = (this.nextReplay.get(channel) ?? 0) + 1;
    this.nextReplay.set(channel, replayId);
    const fields = change.fields ?? {};
    const header = {
      entityName: change.entityName,
      recordIds: change.recordIds,
      changeType: change.changeType,
      changeOrigin: change.changeOrigin ?? 'com/salesforce/api/rest/62.0',
      transactionKey: `000${(++this.transaction).toString(16)}-${randomBytes(4).toString('hex')}`,
      sequenceNumber: 1,
      commitTimestamp: change.commitTimestamp ?? Date.now(),
      commitNumber: 10_000_000 + this.transaction,
      commitUser: change.commitUser ?? '005000000000001AAA',
      nulledFields: Object.entries(fields).filter(([, v]) => v === null).map(([k]) => k),
      diffFields: [],
      changedFields: change.changedFields ?? (change.changeType === 'UPDATE' ? [...Object.keys(fields), 'LastModifiedDate'] : []),
    };
    const data = { schema: `${change.entityName}-schema-1`, payload: { ChangeEventHeader: header, ...fields, LastModifiedDate: new Date(header.commitTimestamp).toISOString() }, event: { replayId } };
    const kept = this.retained.get(channel) ?? [];
    kept.push({ channel, replayId, data });
    if (kept.length > (this.options.retain ?? 10_000)) kept.splice(0, kept.length - (this.options.retain ?? 10_000));
    this.retained.set(channel, kept);
    for (const client of this.clients.values()) if (client.channels.has(channel)) this.deliver(client, channel, data);
    return replayId;
  }

  /** Drops retained events up to and including `replayId` (retention passing). */
  expire(entityName: 'Contact' | 'Lead', replayId: number): void {
    const kept = this.retained.get(CHANNELS[entityName]) ?? [];
    this.retained.set(CHANNELS[entityName], kept.filter((e) => e.replayId > replayId));
  }

  /** Change events published on an entity's channel so far. */
  published(entityName: 'Contact' | 'Lead'): number {
    return this.nextReplay.get(CHANNELS[entityName]) ?? 0;
  }

  /** Clients subscribed to a channel now. */
  subscribers(entityName: 'Contact' | 'Lead'): number {
    return [...this.clients.values()].filter((c) => c.channels.has(CHANNELS[entityName])).length;
  }

  /** Forgets every client (a server restart): their next connect is told to handshake again. */
  dropClients(): void {
    for (const client of this.clients.values()) client.wake?.();
    this.clients.clear();
  }

  /** Answers what is in flight (held connects end with "unknown client"), then closes. */
  async close(): Promise<void> {
    this.dropClients();
    if (!this.server) return;
    const closed = new Promise<void>((resolve) => this.server!.close(() => resolve()));
    const end = Date.now() + 2_000;
    while (this.inFlight > 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
    this.server.closeAllConnections();
    await closed;
  }

  /** The CometD endpoint, to mount on another fake's server (a body already parsed is taken as it is). */
  async handle(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    const raw = req.body ?? JSON.parse((await readBody(req)) || '[]');
    const messages = (Array.isArray(raw) ? raw : [raw]) as Record<string, unknown>[];
    const token = /^(?:OAuth|Bearer) (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const replies: unknown[] = [];
    this.inFlight++;
    const ordered = [...messages.filter((m) => m.channel !== '/meta/connect'), ...messages.filter((m) => m.channel === '/meta/connect')];
    for (const message of ordered) replies.push(...(await this.answer(message, token)));
    res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8' }).end(JSON.stringify(replies), () => this.inFlight--);
  }

  private async answer(message: Record<string, unknown>, token: string | undefined): Promise<unknown[]> {
    const channel = String(message.channel);
    const base = { channel, id: message.id, clientId: message.clientId };
    const record = (extra: Omit<RecordedMessage, 'channel'>) => this.messages.push({ channel, ...extra });
    if (channel === '/meta/handshake') {
      if (!token || !(this.options.acceptToken?.(token) ?? true)) {
        record({ successful: false, error: '403::Handshake denied' });
        return [{ channel, id: message.id, successful: false, error: '403::Handshake denied', ext: { sfdc: { failureReason: '401::Authentication invalid' }, replay: true }, advice: { reconnect: 'none' } }];
      }
      const client: Client = { id: randomBytes(12).toString('base64url'), connected: false, channels: new Set(), queue: [] };
      this.clients.set(client.id, client);
      record({ clientId: client.id, successful: true });
      return [{ ...base, clientId: client.id, successful: true, version: '1.0', minimumVersion: '1.0', supportedConnectionTypes: ['long-polling'], ext: { replay: true, 'payload.format': true }, advice: { reconnect: 'retry', interval: 0, timeout: this.holdMs } }];
    }
    const client = this.clients.get(String(message.clientId));
    if (!client) {
      record({ clientId: String(message.clientId), successful: false, error: '403::Unknown client' });
      return [{ ...base, successful: false, error: '403::Unknown client', advice: { reconnect: 'handshake', interval: 0 } }];
    }
    if (channel === '/meta/connect') {
      const first = !client.connected;
      client.connected = true;
      if (!client.queue.length && !first) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.holdMs);
          client.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        client.wake = undefined;
      }
      if (!this.clients.has(client.id)) return [{ ...base, successful: false, error: '403::Unknown client', advice: { reconnect: 'handshake', interval: 0 } }];
      const due = client.queue.splice(0);
      return [...due, { ...base, successful: true, advice: { reconnect: 'retry', interval: 0, timeout: this.holdMs } }];
    }
    if (channel === '/meta/subscribe') {
      const subscription = String(message.subscription);
      const replays = (message.ext as { replay?: Record<string, unknown> } | undefined)?.replay;
      const replay = replays?.[subscription] ?? -1;
      const refuse = (error: string) => {
        record({ clientId: client.id, subscription, replay, successful: false, error });
        return [{ ...base, subscription, successful: false, error }];
      };
      if (!Object.values(CHANNELS).includes(subscription as never) || !this.changeDataCapture) return refuse(`400::The channel you requested to subscribe to does not exist {${subscription}}`);
      const kept = this.retained.get(subscription) ?? [];
      const from = Number(replay);
      const oldest = kept[0]?.replayId ?? (this.nextReplay.get(subscription) ?? 0) + 1;
      if (!Number.isInteger(from) || from < -2 || (from >= 0 && from < oldest - 1)) {
        return refuse(`400::The replayId {${String(replay)}} you provided was invalid.  Please provide a valid ID, -2 to replay all events, or -1 to replay only new events.`);
      }
      client.channels.add(subscription);
      record({ clientId: client.id, subscription, replay, successful: true });
      if (from !== -1) for (const event of kept) if (from === -2 || event.replayId > from) this.deliver(client, subscription, event.data);
      return [{ ...base, subscription, successful: true }];
    }
    if (channel === '/meta/unsubscribe') {
      client.channels.delete(String(message.subscription));
      record({ clientId: client.id, subscription: String(message.subscription), successful: true });
      return [{ ...base, subscription: message.subscription, successful: true }];
    }
    if (channel === '/meta/disconnect') {
      this.clients.delete(client.id);
      client.wake?.();
      record({ clientId: client.id, successful: true });
      return [{ ...base, successful: true }];
    }
    record({ clientId: client.id, successful: false, error: '403::Publishing is not allowed' });
    return [{ ...base, successful: false, error: '403::Publishing is not allowed' }];
  }

  private get holdMs(): number {
    return this.options.holdMs ?? 5_000;
  }

  private deliver(client: Client, channel: string, data: unknown): void {
    client.queue.push({ channel, data });
    client.wake?.();
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
