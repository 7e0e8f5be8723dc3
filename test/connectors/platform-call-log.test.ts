import { Writable } from 'node:stream';
import { createLogger, parseScope, type ConnectorDeps } from '@verify-hub/core';
import { MailchimpAuthError } from '@verify-hub/connector-mailchimp';
import { HubSpotAuthError } from '@verify-hub/connector-hubspot';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { FakeMailchimp } from '../fakes/mailchimp';
import { connector as hubspotConnector, localDeps } from '../hubspot/helpers';
import { connector as mailchimpConnector, sharedLocalLimiters } from '../mailchimp/helpers';

/** A pino line as JSON: level, the child's bindings, `call` (a request) or `err` (a failure). */
interface LogEntry {
  level: number;
  msg: string;
  call?: { method: string; path: string; status?: number; durationMs: number; requestId?: string };
  err?: { type: string; message: string; stack: string };
  [binding: string]: unknown;
}

/** A logger at debug whose lines are kept, parsed, as the connector wrote them. */
function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ level: 'debug', destination });
  const entries = () => lines.map((line) => JSON.parse(line) as LogEntry);
  return { logger, lines, entries };
}

const withLogger = (deps: ConnectorDeps, logger: ConnectorDeps['logger']): ConnectorDeps => Object.assign(deps, { logger });

describe('HubSpot connector logging', () => {
  const fake = new FakeHubSpot();
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());

  it('writes a debug line per call (method, path, status, duration, correlation id) and a warn line with the error per failure, never the token', async () => {
    const token = 'pat-na1-secret-token-0f9e8d7c6b5a';
    fake.addPortal({ portalId: '9101', token });
    fake.addContacts('9101', [{ email: 'ann@example.com' }, { email: 'bob@example.com' }]);
    const log = capturedLogger();
    const hub = hubspotConnector(fake, '9101', token, { deps: withLogger(localDeps(), log.logger) });

    const page = await hub.pull(parseScope('all'));
    expect(page.contacts).toHaveLength(2);
    const calls = log.entries().filter((e) => e.call);
    expect(calls).toEqual([
      expect.objectContaining({
        level: 20,
        platform: 'hubspot',
        connectionId: 'hubspot-9101',
        call: { method: 'GET', path: '/crm/v3/objects/contacts', status: 200, durationMs: expect.any(Number), requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      }),
    ]);

    fake.revokeToken(token);
    const failure = await hub.pull(parseScope('all')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HubSpotAuthError);
    const warns = log.entries().filter((e) => e.level === 40);
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatchObject({ platform: 'hubspot', connectionId: 'hubspot-9101', msg: 'HubSpot call failed', err: { type: 'HubSpotAuthError', message: expect.any(String), stack: expect.stringContaining('HubSpotAuthError') } });
    // The failed attempt has its debug line too, with HubSpot's status.
    expect(log.entries().filter((e) => e.call).map((e) => e.call!.status)).toEqual([200, 401]);
    expect(log.lines.join('\n')).not.toContain(token);
  });
});

describe('Mailchimp connector logging', () => {
  const key = `${'c0ffee'.repeat(5)}ab-us9`;
  let fake: FakeMailchimp;
  beforeAll(async () => {
    fake = await new FakeMailchimp().start();
    fake.addAccount(key, { dc: 'us9', userId: 'u9', accountName: 'Logged Shop' });
    fake.addList(key, 'loggedList');
    fake.addMembers('loggedList', [{ email: 'a@example.com' }, { email: 'b@example.com' }]);
  });
  afterAll(() => fake.close());

  it('writes a debug line per call (method, path template, status, duration, request id) and a warn line with the error per failure, never the key', async () => {
    const log = capturedLogger();
    const audience = mailchimpConnector(fake, { apiKey: key }, {}, withLogger(sharedLocalLimiters(), log.logger));

    const page = await audience.pull(parseScope('list:loggedList'));
    expect(page.contacts).toHaveLength(2);
    const calls = log.entries().filter((e) => e.call);
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (const entry of calls) {
      expect(entry).toMatchObject({ level: 20, platform: 'mailchimp', connectionId: audience.connection.id });
      expect(entry.call).toEqual({ method: 'GET', path: expect.stringMatching(/^\/lists\/\{list_id\}/), status: 200, durationMs: expect.any(Number), requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    }

    fake.revoke(key);
    const failure = await audience.pull(parseScope('list:loggedList')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MailchimpAuthError);
    const warns = log.entries().filter((e) => e.level === 40);
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatchObject({ platform: 'mailchimp', msg: expect.stringMatching(/^Mailchimp .+ failed$/), err: { type: 'MailchimpAuthError', stack: expect.stringContaining('MailchimpAuthError') } });
    expect(log.entries().filter((e) => e.call).at(-1)!.call).toMatchObject({ status: 401, requestId: expect.any(String) });
    expect(log.lines.join('\n')).not.toContain(key);
    expect(log.lines.join('\n')).not.toContain(key.slice(0, 30));
  });
});
