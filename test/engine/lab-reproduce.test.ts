import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SyncPipeline } from '@verify-hub/sync-jobs';
import { loadConfig } from '@verify-hub/core';
import { engineOptionsFromConfig } from '@verify-hub/engine';
import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import { cli } from '../cli/run-cli';

/**
 * A lab reproduces a verdict from outside the code: ENGINE_DNS_SERVERS, ENGINE_SMTP_PORT and
 * ENGINE_ALLOW_PRIVATE_MX=on point `verify`, `clean` and `engine` at its own DNS and SMTP peers.
 */
describe('reproducing verdicts in a lab (ENGINE_ALLOW_PRIVATE_MX)', () => {
  const saved = { ...process.env };
  let world: MailWorld;
  let dir: string;

  beforeAll(async () => {
    world = await startMailWorld();
    world.smtp.script('ada@acme-mail.com', 'accept');
    dir = mkdtempSync(join(tmpdir(), 'vh-lab-'));
    delete process.env.ENGINE_URL;
    delete process.env.ENGINE_API_KEY;
    process.env.ENGINE_DNS_SERVERS = world.dnsServer;
    process.env.ENGINE_SMTP_PORT = String(world.smtpPort);
    process.env.VERIFY_HUB_REDIS_PREFIX = `vhtest-lab-${randomUUID().slice(0, 8)}`;
  });
  afterAll(async () => {
    const cleanup = new SyncPipeline({ redisUrl: saved.REDIS_URL ?? process.env.REDIS_URL, prefix: process.env.VERIFY_HUB_REDIS_PREFIX });
    await cleanup.purge();
    await cleanup.close();
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
    await world.stop();
  });

  it('off by default: a loopback MX is mx_private, no connection is made', async () => {
    delete process.env.ENGINE_ALLOW_PRIVATE_MX;
    world.smtp.connections.clear();
    const r = await cli('verify', 'ada@acme-mail.com');
    expect(r.out).toMatch(/Reason code: mx_private/);
    expect(world.smtp.connections.size).toBe(0);
  });

  it('on: verify talks to the lab peer and gives its verdict', async () => {
    process.env.ENGINE_ALLOW_PRIVATE_MX = 'on';
    const r = await cli('verify', 'ada@acme-mail.com');
    expect(r.out).toMatch(/^ada@acme-mail\.com: SAFE, score 95\/100$/m);
  });

  it('on: clean gives the same verdicts', async () => {
    process.env.ENGINE_ALLOW_PRIVATE_MX = 'on';
    const input = join(dir, 'lab.csv');
    writeFileSync(input, 'email\nada@acme-mail.com\nnobody@acme-mail.com\n');
    const r = await cli('clean', input, '--no-progress');
    expect(r.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(dir, 'lab.summary.json'), 'utf8'));
    expect(summary.counts).toMatchObject({ safe: 1, invalid: 1 });
  });

  it('on: the engine server takes the same options from the configuration', () => {
    const options = engineOptionsFromConfig(loadConfig({ ...process.env, ENGINE_ALLOW_PRIVATE_MX: 'on', ENGINE_ACCEPT_ALL_VERDICT: 'unknown' }));
    expect(options).toMatchObject({ allowPrivateMx: true, acceptAllVerdict: 'unknown', smtpPort: world.smtpPort, dnsServers: [world.dnsServer] });
    expect(() => loadConfig({ ...process.env, ENGINE_ALLOW_PRIVATE_MX: 'yes' })).toThrow(/ENGINE_ALLOW_PRIVATE_MX/);
  });
});
