import { Command } from 'commander';
import { register as registerDisconnect } from '../../cli/src/commands/disconnect';
import { mailchimpPlatform } from '@verify-hub/connector-mailchimp';
import { registerPlatformCommands } from '../../cli/src/platform-commands';

/** The platform module's commands, as `verify-hub` adds them. */
const register = (program: Command) => registerPlatformCommands(program, mailchimpPlatform);
import { FakeMailchimp } from '../fakes/mailchimp';

const KEY = `${'9'.repeat(32)}-us4`;
let fake: FakeMailchimp;
const saved = { ...process.env };

beforeAll(async () => {
  fake = await new FakeMailchimp().start();
  fake.addAccount(KEY, { dc: 'us4' });
  fake.addList(KEY, 'cliList');
  fake.addMergeField('cliList', { tag: 'EVSCORE', name: 'Score', type: 'text' }); // wrong type: a problem to report
});
afterAll(async () => {
  process.env = saved;
  process.exitCode = undefined;
  await fake.close();
});

async function run(args: string[]): Promise<string> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void lines.push(parts.join(' ')));
  try {
    const program = new Command('verify-hub').exitOverride();
    register(program);
    registerDisconnect(program);
    await program.parseAsync(['node', 'verify-hub', ...args]);
  } finally {
    log.mockRestore();
  }
  return lines.join('\n');
}

test('mailchimp setup creates the missing merge fields, reports a field of the wrong type, and is idempotent', async () => {
  process.env.MAILCHIMP_API_KEY = KEY;
  process.env.MAILCHIMP_API_BASE = fake.apiBase;
  const out = await run(['mailchimp', 'setup', '--list', 'cliList']);
  expect(out).toContain('created   merge field EVRISK (text)');
  expect(out).toContain('created   merge field EVDATE (text)');
  expect(out).toContain("PROBLEM   merge field EVSCORE exists with type text");
  expect(process.exitCode).toBe(1);
  process.exitCode = undefined;
  const again = JSON.parse(await run(['mailchimp', 'setup', '--list', 'cliList', '--json'])) as { created: string[]; existing: string[] };
  expect(again.created).toEqual([]);
  expect(again.existing).toEqual(['merge field EVRISK', 'merge field EVDATE']);
  expect(out).not.toContain(KEY);
});

test('mailchimp setup without MAILCHIMP_API_KEY names the variable', async () => {
  delete process.env.MAILCHIMP_API_KEY;
  await expect(run(['mailchimp', 'setup', '--list', 'cliList'])).rejects.toThrow(/^MAILCHIMP_API_KEY: is required/);
});

test('mailchimp connect stores a sealed connection with a webhook secret that the webhook parser accepts', async () => {
  const { randomUUID } = await import('node:crypto');
  const { SecretBox } = await import('@verify-hub/core');
  const { Keys, RedisConnectionStore, createRedis } = await import('@verify-hub/sync-jobs');
  const { parseWebhook, mailchimpConnectorFactory } = await import('@verify-hub/connector-mailchimp');
  const { createLocalLimiter } = await import('@verify-hub/core');
  const prefix = `vhtest-${randomUUID().slice(0, 8)}`;
  const secretKey = 's'.repeat(40);
  Object.assign(process.env, { MAILCHIMP_API_KEY: KEY, MAILCHIMP_API_BASE: fake.apiBase, HUB_SECRET_KEY: secretKey, VERIFY_HUB_REDIS_PREFIX: prefix, HUB_PUBLIC_URL: 'https://hub.example.com/' });
  const redis = createRedis(process.env.REDIS_URL!);
  try {
    const out = await run(['mailchimp', 'connect', '--list', 'cliList']);
    expect(out).toContain('stored connection mailchimp-us4-cliList');
    expect(out).not.toContain(KEY);
    const url = /https:\/\/hub\.example\.com\/webhooks\/mailchimp\/mailchimp-us4-cliList\/([A-Za-z0-9_-]{32})/.exec(out);
    expect(url).not.toBeNull();
    // Mailchimp cannot reach hub.example.com from here: it says so, and the address is printed to add by hand.
    expect(out).toMatch(/^Mailchimp did not register the webhook: The resource submitted could not be validated\. url: .*: add it by hand$/m);
    expect(fake.webhooks('cliList')).toEqual([]);

    const raw = JSON.stringify(await redis.hgetall(new Keys(prefix).connection('mailchimp-us4-cliList')));
    expect(raw).toContain('credentials'); // the record is there, sealed
    expect(raw).not.toContain(KEY);
    expect(raw).not.toContain(url![1]);
    const record = (await new RedisConnectionStore(redis, new Keys(prefix), new SecretBox(secretKey)).get('mailchimp-us4-cliList'))!;
    expect(record).toMatchObject({ platform: 'mailchimp', settings: { listId: 'cliList' }, credentials: { apiKey: KEY, webhookSecret: url![1] } });

    // the stored connection works for a sync, and its secret for the webhook URL printed
    const connector = mailchimpConnectorFactory(record, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined });
    await expect(connector.ensureSchema()).resolves.toMatchObject({ created: [] });
    const body = Buffer.from('type=subscribe&fired_at=2026-11-21+10%3A00%3A00&data%5Bemail%5D=new%40example.com&data%5Blist_id%5D=cliList&data%5Bid%5D=abc');
    const request = { method: 'POST', url: url![0], headers: { 'content-type': 'application/x-www-form-urlencoded' }, body };
    expect(parseWebhook(request, url![1], String(record.credentials.webhookSecret))).toHaveLength(1);
    expect(() => parseWebhook(request, 'wrong-secret', String(record.credentials.webhookSecret))).toThrow();

    await expect(run(['mailchimp', 'connect', '--list', 'bad list!'])).rejects.toThrow(/^--list: /);

    // Disconnecting deletes the webhook pasted into Mailchimp (the hub's address for this connection) and the stored token.
    fake.addWebhook('cliList', url![0]);
    fake.addWebhook('cliList', 'https://elsewhere.example.com/hook');
    expect(await run(['disconnect', 'mailchimp-us4-cliList'])).toBe('Deleted: the stored token, 1 Mailchimp webhook.');
    expect(fake.webhooksOf('cliList')).toEqual(['https://elsewhere.example.com/hook']);
    expect(await redis.exists(new Keys(prefix).connection('mailchimp-us4-cliList'))).toBe(0);
    await expect(run(['disconnect', 'mailchimp-us4-cliList'])).rejects.toThrow(/^connection-id: no stored connection "mailchimp-us4-cliList"/);
  } finally {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    for (const name of ['HUB_SECRET_KEY', 'VERIFY_HUB_REDIS_PREFIX', 'HUB_PUBLIC_URL']) delete process.env[name];
  }
});

test('mailchimp audiences (and connect without --list) list the account\'s audiences; connect registers the webhook when HUB_PUBLIC_URL is reachable', async () => {
  const { createServer } = await import('node:http');
  const { randomUUID } = await import('node:crypto');
  const { createRedis, Keys, RedisConnectionStore } = await import('@verify-hub/sync-jobs');
  const { SecretBox } = await import('@verify-hub/core');
  fake.addList(KEY, 'newsA', 'Newsletter');
  fake.addMembers('newsA', [{ email: 'a@example.com' }, { email: 'b@example.com', status: 'unsubscribed' }]);
  // Stands in for the hub: Mailchimp checks a webhook's URL with a GET that must answer 200.
  const hub = createServer((_req, res) => res.writeHead(200).end());
  await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
  const prefix = `vhtest-${randomUUID().slice(0, 8)}`;
  const hubUrl = `http://127.0.0.1:${(hub.address() as { port: number }).port}`;
  Object.assign(process.env, { MAILCHIMP_API_KEY: KEY, MAILCHIMP_API_BASE: fake.apiBase, HUB_SECRET_KEY: 's'.repeat(40), VERIFY_HUB_REDIS_PREFIX: prefix, HUB_PUBLIC_URL: hubUrl });
  const redis = createRedis(process.env.REDIS_URL!);
  try {
    const listed = await run(['mailchimp', 'audiences']);
    expect(listed.split('\n')).toEqual(expect.arrayContaining(['cliList  List cliList (0 members)', 'newsA  Newsletter (1 member)']));
    const picking = await run(['mailchimp', 'connect']);
    expect(picking).toContain('Pick an audience and run again with --list <id>:');
    expect(picking).toContain('newsA  Newsletter (1 member)');
    expect(process.exitCode).toBe(1);
    process.exitCode = undefined;

    const out = await run(['mailchimp', 'connect', '--list', 'newsA']);
    expect(out).toContain('registered the audience webhook in Mailchimp');
    expect(out).not.toContain('webhook URL for Mailchimp');
    expect(fake.webhooks('newsA')).toEqual([expect.objectContaining({ url: expect.stringMatching(new RegExp(`^${hubUrl}/webhooks/mailchimp/mailchimp-us4-newsA/`)), sources: { user: true, admin: true, api: false }, signing_enabled: true })]);

    // The signing secret Mailchimp answered once is kept with the key, sealed.
    const store = new RedisConnectionStore(redis, new Keys(prefix), new SecretBox('s'.repeat(40)));
    const hookUrl = fake.webhooks('newsA')[0]!.url;
    const signing = fake.signingSecretOf('newsA', hookUrl)!;
    expect((await store.get('mailchimp-us4-newsA'))!.credentials.webhookSigningSecret).toBe(signing);
    expect(JSON.stringify(await redis.hgetall(new Keys(prefix).connection('mailchimp-us4-newsA')))).not.toContain(signing);

    // A connection registered before signing (an unsigned webhook, no secret held) is registered again by `setup`, signed.
    const before = (await store.get('mailchimp-us4-newsA'))!;
    const { webhookSigningSecret: _dropped, ...unsignedCredentials } = before.credentials;
    await store.save({ ...before, credentials: unsignedCredentials });
    fake.replaceWebhooks('newsA', [{ url: hookUrl, sources: { user: true, admin: true, api: false }, events: { subscribe: true, unsubscribe: true, profile: true, cleaned: true, upemail: true, campaign: false } }]);
    expect(fake.webhooks('newsA')[0]!.signing_enabled).toBe(false);
    const setupOut = await run(['mailchimp', 'setup', '--list', 'newsA']);
    expect(setupOut).toContain('webhook   registered again for mailchimp-us4-newsA, signed');
    const [resigned, ...more] = fake.webhooks('newsA');
    expect(more).toEqual([]);
    expect(resigned).toMatchObject({ url: hookUrl, signing_enabled: true });
    expect((await store.get('mailchimp-us4-newsA'))!.credentials.webhookSigningSecret).toBe(fake.signingSecretOf('newsA', hookUrl));
    // Once signed and held, `setup` leaves it alone.
    expect(await run(['mailchimp', 'setup', '--list', 'newsA'])).not.toContain('registered again');
    expect(fake.webhooks('newsA')[0]!.id).toBe(resigned!.id);
  } finally {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    hub.close();
    for (const name of ['HUB_SECRET_KEY', 'VERIFY_HUB_REDIS_PREFIX', 'HUB_PUBLIC_URL']) delete process.env[name];
  }
});
