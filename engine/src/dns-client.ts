import { promises as dns } from 'node:dns';
import { TtlCache } from './ttl-cache';

export type DnsAnswer<T> =
  | { kind: 'ok'; records: T[] }
  | { kind: 'nodata' }
  | { kind: 'nxdomain' }
  /** Timeout, refused, server failure: the resolver gave no usable answer. */
  | { kind: 'error'; code: string };

export interface MxRecord {
  exchange: string;
  priority: number;
}

/** The TLD probed to tell "this TLD does not exist" from "this resolver cannot see the internet". */
export const ANCHOR_TLD = 'com';

/**
 * A thin layer over Node's c-ares resolver: configurable servers (`ip` or `ip:port`), one bounded attempt
 * per query, and answers folded into four outcomes so the checks never guess from error strings.
 */
export class DnsClient {
  private readonly resolver: dns.Resolver;
  private readonly zoneCache: TtlCache<boolean>;

  constructor(servers: string[] | undefined, timeoutMs: number, cacheTtlMs: number) {
    this.resolver = new dns.Resolver({ timeout: timeoutMs, tries: 1 });
    if (servers && servers.length > 0) this.resolver.setServers(servers);
    this.zoneCache = new TtlCache<boolean>(cacheTtlMs);
  }

  mx(domain: string): Promise<DnsAnswer<MxRecord>> {
    return this.query(() => this.resolver.resolveMx(domain));
  }

  a(host: string): Promise<DnsAnswer<string>> {
    return this.query(() => this.resolver.resolve4(host));
  }

  aaaa(host: string): Promise<DnsAnswer<string>> {
    return this.query(() => this.resolver.resolve6(host));
  }

  /** TXT records, each one's strings joined (RFC 7208 §3.3: SPF strings are concatenated). */
  async txt(name: string): Promise<DnsAnswer<string>> {
    const answer = await this.query(() => this.resolver.resolveTxt(name));
    return answer.kind === 'ok' ? { kind: 'ok', records: answer.records.map((parts) => parts.join('')) } : answer;
  }

  /**
   * Whether the resolver answers for a zone (SOA, else NS), cached. A resolver in a sandbox answers
   * NXDOMAIN or REFUSED for everything, so it fails this even for `com`.
   */
  zoneAnswers(zone: string): Promise<boolean> {
    return this.zoneCache.get(zone, async () => {
      const soa = await this.query(async () => [await this.resolver.resolveSoa(zone)]);
      if (soa.kind === 'ok') return true;
      const ns = await this.query(() => this.resolver.resolveNs(zone));
      return ns.kind === 'ok';
    });
  }

  cancel(): void {
    this.resolver.cancel();
  }

  private async query<T>(run: () => Promise<T[]>): Promise<DnsAnswer<T>> {
    try {
      const records = await run();
      return records.length === 0 ? { kind: 'nodata' } : { kind: 'ok', records };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      if (code === dns.NOTFOUND) return { kind: 'nxdomain' };
      if (code === dns.NODATA) return { kind: 'nodata' };
      return { kind: 'error', code };
    }
  }
}
