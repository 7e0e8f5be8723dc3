import type { AddressInfo, Server, Socket } from 'node:net';
import { createServer, type Socks5Server } from '@pondwader/socks5-server';
import type { LocalEngineOptions } from '@verify-hub/engine';
import { startLabWorld, type LabWorld } from '../fakes/mail-peers';
import { engineFor } from './helpers';

/** ENGINE_SMTP_PROXY: every SMTP connection through a SOCKS5 proxy gives the same verdicts as direct. */
describe('SMTP through a SOCKS5 proxy', () => {
  let lab: LabWorld;
  let proxy: Socks5Server;
  let proxyPort: number;
  const proxied: string[] = [];
  const clientSockets = new Set<Socket>();
  // Generous time limits: the comparison is about verdicts, and no case here is a tarpit (a loaded 2-core
  // machine must not turn a slow answer into smtp_timeout on one side only).
  const labOptions: LocalEngineOptions = { smtpBudgetMs: 10_000, smtpCommandTimeoutMs: 5000, totalTimeoutMs: 20_000, dnsTimeoutMs: 5000, domainCacheTtlMs: 60_000, smtpSessionIdleMs: 2000 };

  beforeAll(async () => {
    lab = await startLabWorld();
    proxy = createServer({ auth: { username: 'lab', password: 's3cret-proxy-pass' } });
    proxy.setRulesetValidator((connection) => {
      proxied.push(`${connection.destAddress}:${connection.destPort}`);
      return true;
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
    const server = (proxy as unknown as { server: Server }).server;
    server.on('connection', (socket: Socket) => clientSockets.add(socket.once('close', () => clientSockets.delete(socket))));
    proxyPort = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await lab.stop();
    // The proxy library does not end a client's socket when the mail server hangs up: end them here.
    for (const socket of clientSockets) socket.destroy();
    await new Promise((resolve) => proxy.close(() => resolve(undefined)));
  });

  const world = () => ({ dnsServer: lab.dnsServer, smtpPort: lab.smtpPort }) as never;

  it('gives the same verdict for every case of the scripted world, and every connection went through the proxy', async () => {
    const smtpCases = lab.cases.filter((c) => !c.behaviour.includes('tarpit'));
    const direct = engineFor(world(), labOptions);
    const viaProxy = engineFor(world(), { ...labOptions, smtpProxy: `socks5://lab:s3cret-proxy-pass@127.0.0.1:${proxyPort}` });
    // One verification per case, one case after another: the same work on both sides, whatever the load.
    const verdicts = async (engine: typeof direct) => {
      const lines: string[] = [];
      for (const c of smtpCases) {
        const v = await engine.verify(c.address);
        lines.push([c.address, v.risk, v.reason].join(' '));
      }
      return lines;
    };
    try {
      const directVerdicts = await verdicts(direct);
      proxied.length = 0;
      const sessionsBefore = lab.sessions();
      const proxyVerdicts = await verdicts(viaProxy);
      expect(proxyVerdicts).toEqual(directVerdicts);
      // Every session the peers saw in the proxied run came through the proxy.
      expect(proxied.length).toBeGreaterThanOrEqual(lab.sessions() - sessionsBefore);
      expect(lab.sessions() - sessionsBefore).toBeGreaterThan(10);
      expect(proxied.every((d) => d.endsWith(`:${lab.smtpPort}`))).toBe(true);
    } finally {
      await Promise.all([direct.close(), viaProxy.close()]);
    }
  }, 180_000);

  it('a proxy that refuses us is unknown (smtp_unreachable), and its password appears nowhere in the answer', async () => {
    const engine = engineFor(world(), { ...labOptions, smtpProxy: `socks5://lab:wrong-pass-123@127.0.0.1:${proxyPort}` });
    const v = await engine.verify('john@acme-mail.com');
    await engine.close();
    expect(v).toMatchObject({ risk: 'unknown', reason: 'smtp_unreachable', billable: false });
    expect(JSON.stringify(v)).not.toContain('wrong-pass-123');
  });

  it('a malformed proxy setting is a clear error naming the setting, not echoing it', () => {
    expect(() => engineFor(world(), { smtpProxy: 'http://user:hunter2@proxy:8080' })).toThrow('ENGINE_SMTP_PROXY: must start with socks5://');
    expect(() => engineFor(world(), { smtpProxy: 'not a url hunter2' })).toThrow(/^ENGINE_SMTP_PROXY: must be a URL/);
  });
});
