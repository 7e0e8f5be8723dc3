import { VerifyHubError, type EventJournal, type EventJournalEntry, type Logger } from '@verify-hub/core';
import type { Connection } from 'jsforce';
import { CDC_CHANNELS, readChange, type CdcObject } from './cdc-events';
import { SalesforceErrors } from './errors';
import { jsforceStreaming } from './sdk';

/** The org's edition has no Change Data Capture (Professional): the channel does not exist for it. */
export class ChangeDataCaptureUnavailableError extends VerifyHubError {
  override readonly code: string = 'CDC_UNAVAILABLE';
}

/** The Streaming API refused the session (expired or revoked): a new access token is needed. */
export class StreamingAuthError extends VerifyHubError {
  override readonly code: string = 'STREAMING_AUTH';
}

/** The part of Faye's client (jsforce's streaming client) used here. */
interface FayeClient {
  subscribe(channel: string, onMessage: (message: unknown) => void): FayeSubscription;
  /** Undefined when the client never connected. */
  disconnect(): FayeSubscription | undefined;
}
interface FayeSubscription {
  callback(fn: () => void): void;
  errback(fn: (error: { message?: string; code?: number } | string) => void): void;
}

/**
 * How far each channel has been handed over: the replay id of the last event, or null before the first
 * (the channel is then read from -2, every event Salesforce still keeps, and events committed before
 * the connection was made are skipped: the first sync covered them).
 */
type Positions = Partial<Record<CdcObject, number | null>>;

const OFFSET_PREFIX = 'cdc:';
const DISCONNECT_WAIT_MS = 2_000;
const encode = (positions: Positions) => OFFSET_PREFIX + JSON.stringify(positions);

export interface CdcJournalOptions {
  orgId: string;
  objects: CdcObject[];
  /** A jsforce connection with a current access token; `renew` after the Streaming API refused one. */
  open(options: { renew: boolean }): Promise<Connection>;
  /** Epoch ms the connection was made: on a first read (-2), events committed before it are skipped. */
  since: number;
  /** How long `after` waits for an event before answering an empty entry (so the reader's lease is renewed). */
  heartbeatMs?: number;
  /** How long a subscription may take to be answered. */
  subscribeTimeoutMs?: number;
  logger?: Logger;
}

interface Session {
  clients: FayeClient[];
  buffer: { object: CdcObject; message: unknown }[];
  /** Positions as of the last entry handed out: `after(encode(handed))` goes on with this session. */
  handed: Positions;
  /** Events of channels not read yet committed before this are skipped. */
  since: number;
  /** Ends the subscriptions still waiting for their answer (the session is let go). */
  cancels: (() => void)[];
  wake?: () => void;
  failure?: Error;
}

/**
 * A connection's Change Data Capture channels (ContactChangeEvent, LeadChangeEvent) as an event journal
 * for the host's journal reader, which keeps the offset in Redis and a lease per connection (one process
 * subscribes at a time). The offset is each channel's last replay id handed over: a restarted reader
 * subscribes with those ids through jsforce's Replay extension, so Salesforce sends exactly the events
 * after them (nothing missed within its 72-hour retention, nothing repeated). Each event is one entry;
 * when none comes within `heartbeatMs`, an empty entry with the same offset is answered, so the reader
 * stays subscribed and renews its lease. A replay id older than the retention is logged as a gap and
 * the channel is read again from the oldest event kept.
 *
 * Each channel has its own Faye client: jsforce's Replay extension holds one channel's replay id, and
 * two of them on one client overwrite each other's `ext.replay` on every subscribe.
 */
export class CdcJournal implements EventJournal {
  private session?: Session;
  private closed = false;
  /** The Streaming API refused the token mid-session: the next session asks for a new one. */
  private renew = false;
  /** Unknown message shapes are logged once per reader, not per message. */
  private warnedUnread = false;
  /** What was ignored, by reason (own_write, no_email_change, ...): for logs and tests. */
  readonly ignored: Record<string, number> = {};

  constructor(private readonly options: CdcJournalOptions) {}

  earliest(): Promise<EventJournalEntry | undefined> {
    return this.after(encode(Object.fromEntries(this.options.objects.map((o) => [o, null]))));
  }

  /** `since` replaces the connection's time for channels not read yet (the last poll's, after a fallback). */
  async after(offset: string, since = this.options.since): Promise<EventJournalEntry | undefined> {
    if (this.closed) return undefined;
    const wanted = decode(offset, this.options.objects);
    if (!this.session || encode(this.session.handed) !== encode(wanted)) {
      try {
        await this.restart(wanted, since);
      } catch (error) {
        if (this.closed) return undefined;
        throw error;
      }
    }
    const session = this.session;
    if (!session) return undefined; // closed while subscribing
    const deadline = Date.now() + (this.options.heartbeatMs ?? 20_000);
    for (;;) {
      if (this.closed) return undefined;
      if (session.failure) {
        const failure = session.failure;
        await this.stopSession();
        if (!(failure instanceof StreamingAuthError) || this.renew) throw failure;
        // The token expired while subscribed: once more with a new one, from what was handed over.
        this.renew = true;
        return this.after(encode(session.handed), session.since);
      }
      const next = session.buffer.shift();
      if (!next) {
        const left = deadline - Date.now();
        if (left <= 0) return { offset: encode(session.handed), events: [], uninstalled: false };
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          session.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        session.wake = undefined;
        continue;
      }
      const change = readChange(next.object, this.options.orgId, next.message);
      if ('unread' in change) {
        if (!this.warnedUnread) this.options.logger?.warn({ object: next.object, problem: change.unread }, 'Salesforce change event of an unknown shape skipped');
        this.warnedUnread = true;
        continue;
      }
      const position = session.handed[next.object];
      // Faye re-subscribes after a reconnect from the last id it saw: what was handed over already is dropped here.
      if (typeof position === 'number' && change.replayId <= position) continue;
      const beforeConnection = position === null && (change.commitTimestamp ?? Infinity) < session.since;
      session.handed = { ...session.handed, [next.object]: change.replayId };
      if (change.ignored) this.ignored[change.ignored] = (this.ignored[change.ignored] ?? 0) + 1;
      if (change.ignored === 'overflow') this.options.logger?.warn({ object: next.object, replayId: change.replayId }, 'Salesforce reported more changes than it can list (GAP_OVERFLOW): run a changed-since sync to catch them');
      return { offset: encode(session.handed), events: beforeConnection ? [] : change.events, uninstalled: false };
    }
  }

  /** Unsubscribes; a pending `after` answers undefined (the reader keeps its offset). */
  async close(): Promise<void> {
    this.closed = true;
    this.session?.wake?.();
    await this.stopSession();
  }

  private async stopSession(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    if (!session) return;
    for (const cancel of session.cancels.splice(0)) cancel();
    await disconnectAll(session.clients);
  }

  /** Subscribes every channel from `positions`, after the session there was (if any) is let go. */
  private async restart(positions: Positions, since: number): Promise<void> {
    await this.stopSession();
    const session: Session = { clients: [], buffer: [], handed: { ...positions }, since, cancels: [] };
    this.session = session;
    try {
      let connection = await this.options.open({ renew: this.renew });
      for (const object of this.options.objects) {
        // Closed (or started again) meanwhile: what this session subscribed is let go below.
        if (this.closed || this.session !== session) break;
        const from = positions[object] ?? -2;
        try {
          await this.subscribe(session, connection, object, from);
          this.renew = false;
        } catch (error) {
          if (error instanceof StreamingAuthError) {
            connection = await this.options.open({ renew: true });
            await this.subscribe(session, connection, object, from);
          } else if (isInvalidReplay(error)) {
            this.options.logger?.error({ object, replayId: from }, 'Salesforce no longer keeps the change events after the saved replay id (72-hour retention): changes in between were missed; reading from the oldest event kept. Run a changed-since sync to catch up.');
            await this.subscribe(session, connection, object, -2);
          } else throw error;
        }
      }
    } catch (error) {
      if (this.session === session) this.session = undefined;
      await disconnectAll(session.clients);
      throw error;
    }
    if (this.closed || this.session !== session) {
      if (this.session === session) this.session = undefined;
      await disconnectAll(session.clients);
    }
  }

  private subscribe(session: Session, connection: Connection, object: CdcObject, replayId: number): Promise<void> {
    const channel = CDC_CHANNELS[object];
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (error?: Error) => {
        if (settled) {
          // After the subscription was made: the session fails, the next read starts a new one.
          if (error && !session.failure) {
            session.failure = error;
            session.wake?.();
          }
          return;
        }
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      session.cancels.push(() => settle(new VerifyHubError(`the subscription to ${channel} was let go`)));
      const { StreamingExtension } = jsforceStreaming();
      const authFailure = new StreamingExtension.AuthFailure(() => settle(new StreamingAuthError('Salesforce refused the session for the Streaming API (expired or revoked)')));
      const client = connection.streaming.createClient([new StreamingExtension.Replay(channel, replayId), authFailure]) as unknown as FayeClient;
      session.clients.push(client);
      const timer = setTimeout(() => settle(new SalesforceErrors.TransientError(`Salesforce did not answer the subscription to ${channel} in time`)), this.options.subscribeTimeoutMs ?? 30_000);
      const subscription = client.subscribe(channel, (message) => {
        session.buffer.push({ object, message });
        session.wake?.();
      });
      subscription.callback(() => settle());
      subscription.errback((error) => settle(subscribeError(channel, error)));
    });
  }
}

/** Disconnects each client (Salesforce frees its CometD client slot), waiting a little for each answer. */
function disconnectAll(clients: FayeClient[]): Promise<void> {
  return Promise.all(
    clients.map(
      (client) =>
        new Promise<void>((resolve) => {
          const done = client.disconnect();
          if (!done) return resolve(abandon(client));
          const timer = setTimeout(resolve, DISCONNECT_WAIT_MS);
          const finish = () => {
            clearTimeout(timer);
            resolve();
          };
          done.callback(finish);
          done.errback(finish);
        }),
    ),
  ).then(() => undefined);
}

/** Faye's internals that keep a client that never connected (a handshake unanswered or refused) retrying. */
interface FayeInternals {
  _advice?: { reconnect?: string };
  _dispatcher?: { close(): void; _envelopes?: Map<unknown, { timer?: ReturnType<typeof setTimeout> | null }> };
}

/**
 * A client that never connected cannot be disconnected (Faye only disconnects a connected one) and
 * would go on retrying its handshake every few seconds: its advice is set to "no reconnect" (what
 * Salesforce answers a refused session), its pending messages and their retry timers dropped, and its
 * transport closed.
 */
function abandon(client: FayeClient): void {
  const internals = client as unknown as FayeInternals;
  if (internals._advice) internals._advice.reconnect = 'none';
  const envelopes = internals._dispatcher?._envelopes;
  for (const envelope of envelopes?.values() ?? []) if (envelope.timer) clearTimeout(envelope.timer);
  envelopes?.clear();
  internals._dispatcher?.close();
}

/** A CometD subscribe refusal as an error: an unknown channel means no Change Data Capture in this org. */
function subscribeError(channel: string, error: { message?: string; code?: number } | string): Error {
  const text = typeof error === 'string' ? error : `${error.code ?? ''}::${error.message ?? ''}`;
  if (/does not exist|not\s+(?:enabled|allowed|permitted)|permission/i.test(text)) {
    return new ChangeDataCaptureUnavailableError(`Salesforce has no change events on ${channel} for this org (${text.replace(/^\d*::/, '')}): Change Data Capture is not in its edition or not enabled`);
  }
  return Object.assign(new VerifyHubError(`Salesforce refused the subscription to ${channel}: ${text.replace(/^\d*::/, '')}`), { replayRefused: /replayId/i.test(text) });
}

function isInvalidReplay(error: unknown): boolean {
  return (error as { replayRefused?: boolean }).replayRefused === true;
}

function decode(offset: string, objects: CdcObject[]): Positions {
  let parsed: Record<string, unknown> = {};
  if (offset.startsWith(OFFSET_PREFIX)) {
    try {
      parsed = JSON.parse(offset.slice(OFFSET_PREFIX.length)) as Record<string, unknown>;
    } catch {
      parsed = {};
    }
  }
  return Object.fromEntries(objects.map((o) => [o, Number.isInteger(parsed[o]) ? (parsed[o] as number) : null]));
}
