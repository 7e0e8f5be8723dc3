import type { SmtpSession } from './smtp-session';

/** An established session (greeting, EHLO and STARTTLS done) between two transactions. */
export interface PooledSession {
  session: SmtpSession;
  /** EHLO capabilities (after STARTTLS when upgraded). */
  capabilities: string[];
  starttls: boolean | null;
  /** RCPT commands this session has carried, random probes included. */
  rcpts: number;
}

/**
 * Idle SMTP sessions per mail server (`mx-host|ip:port:tls`), so the next address for the same server reuses an
 * open session (RSET, then MAIL FROM and RCPT TO again) instead of connecting, greeting, EHLO and STARTTLS
 * anew. A session is kept `idleMs` and carries at most `maxRcpts` RCPTs (well under the 100 per message of
 * RFC 5321 §4.5.3.1.8 that providers enforce per session too); an idle one never keeps the process alive.
 */
export class SmtpSessionPool {
  private readonly idle = new Map<string, { pooled: PooledSession; ready: Promise<boolean>; timer: NodeJS.Timeout }[]>();

  constructor(readonly idleMs: number, readonly maxRcpts: number, private readonly maxIdlePerServer: number) {}

  get enabled(): boolean {
    return this.idleMs > 0;
  }

  /** An idle session for this server whose RSET was answered, or undefined. */
  async take(server: string): Promise<PooledSession | undefined> {
    for (let entry = this.pop(server); entry; entry = this.pop(server)) {
      clearTimeout(entry.timer);
      if ((await entry.ready) && entry.pooled.session.usable) {
        entry.pooled.session.setIdle(false);
        return entry.pooled;
      }
      entry.pooled.session.destroy();
    }
    return undefined;
  }

  /** Keeps the session for the next address when it has room (RSET, answered before it is reused); otherwise QUIT. */
  give(server: string, pooled: PooledSession): Promise<void> | void {
    const list = this.idle.get(server) ?? [];
    if (!this.enabled || !pooled.session.usable || pooled.rcpts >= this.maxRcpts || list.length >= this.maxIdlePerServer) return pooled.session.quit();
    pooled.session.bind(undefined);
    pooled.session.setIdle(true);
    const ready = pooled.session.command('RSET').then((reply) => reply.code === 250, () => false);
    const entry = {
      pooled,
      ready,
      timer: setTimeout(() => {
        const current = this.idle.get(server);
        const at = current?.indexOf(entry) ?? -1;
        if (at >= 0) current!.splice(at, 1);
        if (current?.length === 0) this.idle.delete(server);
        void ready.then(() => pooled.session.quit());
      }, this.idleMs).unref(),
    };
    list.push(entry);
    this.idle.set(server, list);
  }

  /** Ends every idle session (QUIT). */
  async close(): Promise<void> {
    const all = [...this.idle.values()].flat();
    this.idle.clear();
    await Promise.all(all.map(async ({ pooled, ready, timer }) => {
      clearTimeout(timer);
      await ready;
      await pooled.session.quit();
    }));
  }

  private pop(server: string) {
    const list = this.idle.get(server);
    const entry = list?.pop();
    if (list?.length === 0) this.idle.delete(server);
    return entry;
  }
}
