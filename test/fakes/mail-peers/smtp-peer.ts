import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';

/**
 * A local SMTP server for tests (built on smtp-server), scripted per mailbox. It speaks real SMTP on
 * loopback (greeting, EHLO, STARTTLS with smtp-server's own certificate, MAIL FROM, RCPT TO) and records
 * every command of every connection, so tests can assert the engine's side of the conversation: QUIT
 * before DATA, always.
 */
export type MailboxBehaviour =
  | 'accept' // 250
  | 'not-found' // 550 5.1.1
  | 'full' // 552 5.2.2
  | 'disabled' // 550 5.2.1
  | 'greylist' // 450 4.7.1
  | 'blocked' // 554 5.7.1 (the probe's IP is on a blocklist)
  | 'drop' // the server closes the connection
  | 'hang' // the server never answers
  | { code: number; message: string };

export interface SmtpPeerOptions {
  /** Answer for mailboxes without a script: 'not-found' (default) or 'accept' (a catch-all domain). */
  unscripted?: MailboxBehaviour;
  /** Offer STARTTLS (default true). */
  starttls?: boolean;
  /** Refuse MAIL FROM with this reply. */
  rejectSender?: { code: number; message: string };
  /** Answer the connection with this reply instead of a 220 greeting (421 busy, 554 policy), then close. */
  rejectConnection?: { code: number; message: string };
  /** Refuse MAIL FROM until STARTTLS (a server that requires TLS: 530 5.7.0). */
  requireTls?: boolean;
  /** Answer `452 4.5.3 Too many recipients` past this many RCPTs on one connection (RSET does not reset it). */
  maxRcptPerSession?: number;
  /** Delay before the greeting, MAIL and RCPT replies, ms (a distant server; default 0). */
  replyDelayMs?: number;
  /** Listen on this loopback address and port (default 127.0.0.1, any free port): several peers can share a port on 127.0.0.x. */
  host?: string;
  port?: number;
}

export interface RecordedConnection {
  id: string;
  commands: string[];
  /** When the connection was accepted, and when each command arrived (performance.now()). */
  connectedAt: number;
  times: number[];
  secure: boolean;
}

export class SmtpPeer {
  readonly connections = new Map<string, RecordedConnection>();
  /** How many times any client sent DATA (tests assert 0). */
  dataCommands = 0;

  private readonly scripts = new Map<string, MailboxBehaviour>();
  private readonly domainDefaults = new Map<string, MailboxBehaviour>();
  private server?: SMTPServer;
  private readonly hanging = new Set<() => void>();
  private readonly rcptCounts = new Map<string, number>();

  constructor(private readonly options: SmtpPeerOptions = {}) {}

  /** The answer for every unscripted mailbox at one domain (for example 'accept' for a catch-all domain). */
  domainDefault(domain: string, behaviour: MailboxBehaviour): this {
    this.domainDefaults.set(domain.toLowerCase(), behaviour);
    return this;
  }

  script(address: string, behaviour: MailboxBehaviour): this {
    this.scripts.set(address.toLowerCase(), behaviour);
    return this;
  }

  /** Every command of every connection, in order ("EHLO", "MAIL", "RCPT", "QUIT", ...). */
  commandNames(): string[][] {
    return [...this.connections.values()].map((c) => c.commands.map((line) => line.split(/[\s:]/)[0]!.toUpperCase()));
  }

  /**
   * The most conversations ever in progress at once, a conversation lasting from the accepted connection to
   * its last command (QUIT). Unlike open sockets, this does not depend on when the server notices a close.
   */
  maxConcurrentConversations(): number {
    const events = [...this.connections.values()]
      .filter((c) => c.times.length > 0)
      .flatMap((c) => [
        { at: c.connectedAt, delta: 1 },
        { at: c.times[c.times.length - 1]!, delta: -1 },
      ])
      .sort((a, b) => a.at - b.at || a.delta - b.delta);
    let current = 0;
    let max = 0;
    for (const e of events) max = Math.max(max, (current += e.delta));
    return max;
  }

  rcptAddresses(): string[] {
    return [...this.connections.values()].flatMap((c) => c.commands.filter((l) => /^RCPT TO:/i.test(l)).map((l) => l.replace(/^RCPT TO:\s*<?([^>]*)>?.*$/i, '$1')));
  }

  async start(): Promise<number> {
    const record = (cid: string) => {
      let c = this.connections.get(cid);
      if (!c) this.connections.set(cid, (c = { id: cid, commands: [], connectedAt: performance.now(), times: [], secure: false }));
      return c;
    };
    const logger = {
      info: () => undefined,
      error: () => undefined,
      debug: (meta: { tnx?: string; cid?: string }, ...message: unknown[]) => {
        if (meta?.tnx === 'command' && meta.cid) {
          const c = record(meta.cid);
          c.commands.push(String(message[1] ?? ''));
          c.times.push(performance.now());
        }
      },
    };
    // smtp-server's own test certificate, passed explicitly (it is only ever used on loopback here).
    const { key, cert } = require('smtp-server/lib/tls-options')() as { key: Buffer; cert: Buffer };
    this.server = new SMTPServer({
      key,
      cert,
      logger: logger as never,
      authOptional: true,
      disabledCommands: ['AUTH'],
      hideSTARTTLS: this.options.starttls === false,
      closeTimeout: 200,
      // A real MX looks the client up in reverse DNS; on loopback that only adds the resolver's delay.
      disableReverseLookup: true,
      banner: 'mail-peer ready',
      onConnect: (session, callback) => {
        record(session.id).connectedAt = performance.now();
        const reject = this.options.rejectConnection;
        this.later(() => callback(reject ? smtpError(reject.code, reject.message) : undefined));
      },
      onSecure: (_socket, session, callback) => {
        record(session.id).secure = true;
        callback();
      },
      onMailFrom: (_address, session, callback) => {
        const reject = this.options.rejectSender;
        this.later(() => {
          if (reject) return callback(smtpError(reject.code, reject.message));
          if (this.options.requireTls && !session.secure) return callback(smtpError(530, '5.7.0 Must issue a STARTTLS command first'));
          callback();
        });
      },
      onRcptTo: (address, session, callback) => this.later(() => this.onRcpt(address, session, callback)),
      onData: (stream, _session, callback) => {
        this.dataCommands++;
        stream.resume();
        stream.on('end', () => callback(new Error('this peer refuses every message')));
      },
    });
    this.server.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
    });
    return this.port;
  }

  get port(): number {
    const address = (this.server as unknown as { server: { address(): AddressInfo | null } } | undefined)?.server.address();
    if (!address) throw new Error('SMTP peer not started');
    return address.port;
  }

  async stop(): Promise<void> {
    for (const release of this.hanging) release();
    this.hanging.clear();
    if (!this.server) return;
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  /** Closes every open connection from the server side (a server ending idle sessions). */
  dropAll(): void {
    for (const c of (this.server as unknown as { connections: Set<{ _socket: { destroy(): void } }> }).connections) c._socket.destroy();
  }

  /** Runs `reply` after the configured reply delay. */
  private later(reply: () => void): void {
    const delay = this.options.replyDelayMs ?? 0;
    if (delay <= 0) return reply();
    setTimeout(reply, delay);
  }

  private onRcpt(address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void): void {
    const lower = address.address.toLowerCase();
    // Counted per connection, across RSETs, as providers count.
    const max = this.options.maxRcptPerSession;
    const count = this.rcptCounts.get(session.id) ?? 0;
    if (max !== undefined && count >= max) return callback(smtpError(452, '4.5.3 Too many recipients'));
    this.rcptCounts.set(session.id, count + 1);
    // RFC 6531: a non-ASCII mailbox needs MAIL FROM ... SMTPUTF8.
    if (/[^\p{ASCII}]/u.test(lower) && !(session.envelope as { smtpUtf8?: boolean }).smtpUtf8) return callback(smtpError(553, '5.6.7 SMTPUTF8 required for a non-ASCII address'));
    const behaviour = this.scripts.get(lower) ?? this.domainDefaults.get(lower.slice(lower.lastIndexOf('@') + 1)) ?? this.options.unscripted ?? 'not-found';
    if (typeof behaviour === 'object') return callback(smtpError(behaviour.code, behaviour.message));
    switch (behaviour) {
      case 'accept':
        return callback();
      case 'not-found':
        return callback(smtpError(550, '5.1.1 The email account that you tried to reach does not exist'));
      case 'full':
        return callback(smtpError(552, '5.2.2 The email account that you tried to reach is over quota'));
      case 'disabled':
        return callback(smtpError(550, '5.2.1 The email account that you tried to reach is disabled'));
      case 'greylist':
        return callback(smtpError(450, '4.7.1 Greylisted, please try again in 120 seconds'));
      case 'blocked':
        return callback(smtpError(554, '5.7.1 Service unavailable; client host blocked using zen.spamhaus.org'));
      case 'drop': {
        const connection = [...((this.server as unknown as { connections: Set<{ id: string; _socket: { destroy(): void } }> }).connections)].find((c) => c.id === session.id);
        connection?._socket.destroy();
        return;
      }
      case 'hang':
        this.hanging.add(() => callback(smtpError(421, '4.3.2 shutting down')));
        return;
    }
  }
}

/** A behaviour from one reply line as a server sends it ("550 5.1.1 ..."): for the documented examples of REPLY_RULES. */
export function replyLine(line: string): { code: number; message: string } {
  const m = /^(\d{3})[ -](.*)$/.exec(line);
  if (!m) throw new Error(`not an SMTP reply line: ${line}`);
  return { code: Number(m[1]), message: m[2]! };
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}
