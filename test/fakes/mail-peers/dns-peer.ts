import type { AddressInfo } from 'node:net';

/**
 * A local authoritative-and-recursive DNS server for tests (built on dns2), answering from a zone map
 * over UDP on loopback like a real resolver would: NOERROR with records, NOERROR with no records
 * (NODATA) for a known name without that type, NXDOMAIN for names it does not know. It can also act
 * like a sandbox resolver that cannot see the internet (NXDOMAIN or REFUSED for everything).
 */
// dns2's typings lag its API; the small surface used here is typed locally.
const dns2 = require('dns2') as {
  createServer(options: { udp: boolean; handle: (request: DnsRequest, send: (response: DnsResponse) => void) => void }): DnsServer;
  Packet: {
    TYPE: Record<string, number>;
    CLASS: { IN: number };
    RCODE: Record<string, number>;
    createResponseFromRequest(request: DnsRequest): DnsResponse;
  };
};
const { Packet } = dns2;

interface DnsRequest {
  questions: { name: string; type: number }[];
}
interface DnsResponse {
  header: { rcode: number; aa?: number };
  answers: Record<string, unknown>[];
  authorities: Record<string, unknown>[];
}
interface DnsServer {
  listen(options: { udp: { port: number; address: string } }): Promise<{ udp: AddressInfo }>;
  close(): Promise<void>;
  addresses(): { udp?: AddressInfo };
}

export interface ZoneRecords {
  MX?: { exchange: string; priority: number }[];
  A?: string[];
  AAAA?: string[];
  TXT?: string[];
  NS?: string[];
  SOA?: boolean;
}

export type DnsPeerMode = 'normal' | 'nxdomain-all' | 'refuse-all' | 'silent';

export class DnsPeer {
  mode: DnsPeerMode = 'normal';
  readonly queries: { name: string; type: string }[] = [];
  private readonly zone = new Map<string, ZoneRecords>();
  private server?: DnsServer;
  /** Milliseconds before answering a query for these names (others answer at once). */
  readonly delays = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(zone: Record<string, ZoneRecords> = {}) {
    for (const [name, records] of Object.entries(zone)) this.set(name, records);
  }

  set(name: string, records: ZoneRecords): this {
    this.zone.set(name.toLowerCase().replace(/\.$/, ''), records);
    return this;
  }

  unset(name: string): this {
    this.zone.delete(name.toLowerCase().replace(/\.$/, ''));
    return this;
  }

  /** Lists an IPv4 address on a DNSBL zone (answers 127.0.0.2 for `<reversed ip>.<zone>`). */
  listOnDnsbl(ip: string, zone: string, answer = '127.0.0.2'): this {
    return this.set(`${ip.split('.').reverse().join('.')}.${zone}`, { A: [answer] });
  }

  queriesFor(name: string): number {
    return this.queries.filter((q) => q.name === name).length;
  }

  async start(): Promise<string> {
    this.server = dns2.createServer({ udp: true, handle: (request, send) => this.handle(request, send) });
    const addresses = await this.server.listen({ udp: { port: 0, address: '127.0.0.1' } });
    return `127.0.0.1:${addresses.udp.port}`;
  }

  get address(): string {
    const udp = this.server?.addresses().udp;
    if (!udp) throw new Error('DNS peer not started');
    return `127.0.0.1:${udp.port}`;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.server?.close();
    this.server = undefined;
  }

  private handle(request: DnsRequest, send: (response: DnsResponse) => void): void {
    const question = request.questions[0];
    if (!question) return;
    const name = question.name.toLowerCase().replace(/\.$/, '');
    const typeName = Object.entries(Packet.TYPE).find(([, v]) => v === question.type)?.[0] ?? String(question.type);
    this.queries.push({ name, type: typeName });
    const response = Packet.createResponseFromRequest(request);
    if (this.mode === 'silent') return;
    if (this.mode === 'refuse-all') {
      response.header.rcode = Packet.RCODE.REFUSED!;
      return send(response);
    }
    const records = this.mode === 'normal' ? this.zone.get(name) : undefined;
    if (!records) {
      response.header.rcode = Packet.RCODE.NXDOMAIN!;
      return send(response);
    }
    const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
    switch (typeName) {
      case 'MX':
        for (const mx of records.MX ?? []) response.answers.push({ ...base, type: Packet.TYPE.MX, exchange: mx.exchange, priority: mx.priority });
        break;
      case 'A':
        for (const address of records.A ?? []) response.answers.push({ ...base, type: Packet.TYPE.A, address });
        break;
      case 'AAAA':
        for (const address of records.AAAA ?? []) response.answers.push({ ...base, type: Packet.TYPE.AAAA, address });
        break;
      case 'TXT':
        for (const data of records.TXT ?? []) response.answers.push({ ...base, type: Packet.TYPE.TXT, data });
        break;
      case 'NS':
        for (const ns of records.NS ?? []) response.answers.push({ ...base, type: Packet.TYPE.NS, ns });
        break;
      case 'SOA':
        if (records.SOA) {
          response.answers.push({ ...base, type: Packet.TYPE.SOA, primary: `ns1.${name}`, admin: `hostmaster.${name}`, serial: 1, refresh: 3600, retry: 600, expiration: 86400, minimum: 60 });
        }
        break;
    }
    const delay = this.delays.get(name);
    if (delay) {
      const t = setTimeout(() => {
        this.timers.delete(t);
        send(response);
      }, delay);
      this.timers.add(t);
      return;
    }
    send(response);
  }
}
