import { Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { SocksClient } from 'socks';

export interface SmtpReply {
  code: number;
  /** RFC 3463 enhanced status code (`5.1.1`), when the server gives one. */
  enhanced: string | null;
  /** The reply text, lines joined with a space, enhanced code removed. */
  text: string;
  lines: string[];
}

/** Why a session ended without a reply: the probe reports each as a distinct `unknown` reason. */
export class SmtpNetworkError extends Error {
  constructor(readonly kind: 'connect_failed' | 'timeout' | 'dropped' | 'tls_failed', message: string) {
    super(message);
    this.name = 'SmtpNetworkError';
  }
}

export interface SmtpSessionOptions {
  host: string;
  port: number;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  signal?: AbortSignal;
  /** Connect through this SOCKS5 proxy (cloud hosts block outbound port 25). */
  proxy?: SocksProxy;
}

export interface SocksProxy {
  host: string;
  port: number;
  userId?: string;
  password?: string;
}

/**
 * `socks5://[user:password@]host:port` as the `socks` client takes it. A malformed value is an error
 * naming the setting, never echoing it (it may hold a password).
 */
export function parseSocksProxy(value: string): SocksProxy {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('ENGINE_SMTP_PROXY: must be a URL like socks5://host:1080');
  }
  if (url.protocol !== 'socks5:' && url.protocol !== 'socks5h:') throw new Error('ENGINE_SMTP_PROXY: must start with socks5://');
  if (!url.hostname) throw new Error('ENGINE_SMTP_PROXY: needs a host');
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 1080,
    ...(url.username ? { userId: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } : {}),
  };
}

const MAX_REPLY_BYTES = 64 * 1024;

/**
 * One SMTP client conversation, command by command. It can EHLO, STARTTLS, MAIL FROM, RCPT TO and
 * QUIT: there is deliberately no DATA, so this code cannot send a message.
 */
export class SmtpSession {
  private socket: Socket | TLSSocket;
  private buffer = '';
  private pending?: { resolve: (r: SmtpReply) => void; reject: (e: Error) => void; lines: string[] };
  private failure?: Error;
  private readonly onAbort = () => this.fail(new SmtpNetworkError('timeout', 'verification deadline reached'));

  private signal?: AbortSignal;

  private constructor(socket: Socket, private readonly options: SmtpSessionOptions) {
    this.socket = socket;
    this.attach(socket);
    this.bind(options.signal);
  }

  /** Ties the session to another verification's deadline (a session reused for the next address). */
  bind(signal: AbortSignal | undefined): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.signal = signal;
    // A signal that aborted already never fires again: end now, or the session runs on to its command timeouts.
    if (signal?.aborted) return this.onAbort();
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Neither failed nor closed: it can carry another transaction. */
  get usable(): boolean {
    return !this.failure && !this.socket.destroyed;
  }

  /** While idle in a pool the session must not keep the process alive; in use it must. */
  setIdle(idle: boolean): void {
    if (idle) this.socket.unref();
    else this.socket.ref();
  }

  /** Connects and reads the greeting. */
  static async open(options: SmtpSessionOptions): Promise<{ session: SmtpSession; greeting: SmtpReply }> {
    if (options.signal?.aborted) throw new SmtpNetworkError('timeout', 'verification deadline reached');
    const socket = options.proxy ? await connectThroughProxy(options, options.proxy) : await connectDirectly(options);
    const session = new SmtpSession(socket, options);
    try {
      const greeting = await session.read();
      return { session, greeting };
    } catch (error) {
      session.destroy();
      throw error;
    }
  }

  async command(line: string): Promise<SmtpReply> {
    if (/[\r\n]/.test(line)) throw new Error('SMTP command must be one line');
    if (/^DATA\b/i.test(line)) throw new Error('the engine never sends DATA');
    const reply = this.read();
    this.socket.write(`${line}\r\n`);
    return reply;
  }

  /** STARTTLS on the open connection. The MX's certificate is not verified: nothing secret is sent, and many MX certificates do not match. */
  async startTls(servername: string): Promise<void> {
    const plain = this.socket as Socket;
    plain.removeAllListeners('data');
    plain.removeAllListeners('close');
    plain.removeAllListeners('error');
    let handshake: TLSSocket | undefined;
    let stopWaiting: (() => void) | undefined;
    const secure = await new Promise<TLSSocket>((resolve, reject) => {
      const timer = setTimeout(() => reject(new SmtpNetworkError('timeout', 'TLS handshake timed out')), this.options.commandTimeoutMs);
      // The deadline also ends a handshake in progress (no command is pending for it to fail).
      const onAbort = () => reject(new SmtpNetworkError('timeout', 'verification deadline reached'));
      stopWaiting = () => {
        clearTimeout(timer);
        this.signal?.removeEventListener('abort', onAbort);
      };
      if (this.signal?.aborted) return onAbort();
      this.signal?.addEventListener('abort', onAbort, { once: true });
      handshake = tlsConnect({ socket: plain, servername: /^[\d.:]+$/.test(servername) ? undefined : servername, rejectUnauthorized: false }, () => resolve(handshake!));
      handshake.once('error', (e) => reject(new SmtpNetworkError('tls_failed', `TLS handshake failed (${e.message})`)));
    })
      .catch((error: Error) => {
        // Both sockets are unusable now (the TLS one owns the connection once made): close them, and mark the
        // session failed so QUIT is not written.
        this.failure = error;
        handshake?.destroy();
        plain.destroy();
        throw error;
      })
      .finally(() => stopWaiting?.());
    secure.removeAllListeners('error');
    this.socket = secure;
    this.buffer = '';
    this.attach(secure);
  }

  /** Polite end: QUIT, wait briefly for the 221, then close whatever happens. */
  async quit(): Promise<void> {
    try {
      if (!this.failure && !this.socket.destroyed) await Promise.race([this.command('QUIT'), new Promise((r) => setTimeout(r, 200).unref())]);
    } catch {
      // the conversation is over either way
    } finally {
      this.destroy();
    }
  }

  destroy(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.socket.destroy();
  }

  private attach(socket: Socket | TLSSocket): void {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('error', () => this.fail(new SmtpNetworkError('dropped', 'connection error')));
    socket.on('close', () => this.fail(new SmtpNetworkError('dropped', 'connection closed by the server')));
  }

  private read(): Promise<SmtpReply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<SmtpReply>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new SmtpNetworkError('timeout', `no SMTP reply within ${this.options.commandTimeoutMs} ms`)), this.options.commandTimeoutMs);
      this.pending = {
        lines: [],
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.onData('');
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > MAX_REPLY_BYTES) return this.fail(new SmtpNetworkError('dropped', 'SMTP reply too long'));
    let eol: number;
    while (this.pending && (eol = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, eol).replace(/\r$/, '');
      this.buffer = this.buffer.slice(eol + 1);
      const pending = this.pending;
      pending.lines.push(line);
      // "250-..." continues a multi-line reply; "250 ..." (or a bare code) ends it.
      if (/^\d{3}-/.test(line)) continue;
      this.pending = undefined;
      pending.resolve(parseReply(pending.lines));
    }
  }

  private fail(error: Error): void {
    if (!this.failure) this.failure = error;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(this.failure);
    this.socket.destroy();
  }
}

/**
 * A TCP connection to the mail server, given up at the connect timeout or the caller's deadline. The socket
 * is made before connecting so that it is closed on every way out, a synchronous throw (an invalid port)
 * included: node's net.connect would have opened its handle and lost it.
 */
function connectDirectly(options: SmtpSessionOptions): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket = new Socket();
    const giveUp = (error: Error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(error);
    };
    const onAbort = () => giveUp(new SmtpNetworkError('timeout', 'verification deadline reached'));
    const timer = setTimeout(() => giveUp(new SmtpNetworkError('timeout', `no connection to ${options.host}:${options.port} within ${options.connectTimeoutMs} ms`)), options.connectTimeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => giveUp(new SmtpNetworkError('connect_failed', `cannot connect to ${options.host}:${options.port} (${e.code ?? e.message})`)));
    try {
      socket.connect({ host: options.host, port: options.port });
    } catch (error) {
      giveUp(error as Error);
    }
  });
}

/** A TCP connection to the mail server through the SOCKS5 proxy (the proxy resolves nothing: we give it the IP). */
async function connectThroughProxy(options: SmtpSessionOptions, proxy: SocksProxy): Promise<Socket> {
  try {
    const { socket } = await SocksClient.createConnection({
      proxy: { host: proxy.host, port: proxy.port, type: 5, ...(proxy.userId ? { userId: proxy.userId, password: proxy.password } : {}) },
      command: 'connect',
      destination: { host: options.host, port: options.port },
      timeout: options.connectTimeoutMs,
    });
    return socket;
  } catch (error) {
    // The proxy's answer says which step failed; its address and credentials stay out of the message.
    const why = /timed? ?out/i.test((error as Error).message) ? 'timeout' : 'connect_failed';
    throw new SmtpNetworkError(why, `cannot connect to ${options.host}:${options.port} through the SOCKS5 proxy (${why === 'timeout' ? 'timed out' : 'refused'})`);
  }
}

export function parseReply(lines: string[]): SmtpReply {
  const code = Number.parseInt(lines[lines.length - 1]?.slice(0, 3) ?? '', 10);
  const texts = lines.map((l) => l.slice(4));
  const enhancedMatch = /^([245])\.(\d{1,3})\.(\d{1,3})\b/.exec(texts[0] ?? '');
  const enhanced = enhancedMatch ? `${enhancedMatch[1]}.${enhancedMatch[2]}.${enhancedMatch[3]}` : null;
  const text = texts.map((t) => (enhanced ? t.replace(/^[245]\.\d{1,3}\.\d{1,3}\s*/, '') : t)).join(' ').trim();
  return { code: Number.isFinite(code) ? code : 0, enhanced, text, lines };
}
