import { createHash } from 'node:crypto';
import { loadConfig } from '@verify-hub/core';
import { jwtAssertion, pkceChallenge, pkceVerifier, salesforcePlatform } from '@verify-hub/connector-salesforce';
import { FakeSalesforce } from '../fakes/salesforce/fake-salesforce';

const SECRET = 'k'.repeat(40);

describe('Salesforce sign-in pieces', () => {
  const config = loadConfig(
    { HUB_SECRET_KEY: SECRET, SALESFORCE_CLIENT_ID: 'consumer-key', SALESFORCE_CLIENT_SECRET: 'consumer-secret', SALESFORCE_SANDBOX_LOGIN_URL: 'https://test.salesforce.com' },
    { platforms: [salesforcePlatform] },
  );
  const setup = salesforcePlatform.setup!({ config } as never)!;

  it('the PKCE verifier is derived from the one-time state with the hub secret: 43 URL-safe characters, one per state, only its S256 hash in the link', () => {
    const verifier = pkceVerifier(SECRET, 'state-1');
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pkceVerifier(SECRET, 'state-1')).toBe(verifier);
    expect(pkceVerifier(SECRET, 'state-2')).not.toBe(verifier);
    expect(pkceVerifier('x'.repeat(40), 'state-1')).not.toBe(verifier);
    const url = new URL(setup.oauth!.authorizeUrl('state-1', 'https://hub.example.com/oauth/salesforce/callback', {}));
    expect(url.origin).toBe('https://login.salesforce.com');
    expect(url.searchParams.get('code_challenge')).toBe(createHash('sha256').update(verifier).digest('base64url'));
    expect(url.searchParams.get('code_challenge')).toBe(pkceChallenge(verifier));
    expect(url.toString()).not.toContain(verifier);
    expect(url.searchParams.get('state')).toBe('state-1');
    expect(() => pkceVerifier(undefined, 'state-1')).toThrow(/HUB_SECRET_KEY/);
  });

  it('a sandbox sign-in goes to the sandbox login host; an unknown one is refused naming the field', () => {
    expect(new URL(setup.oauth!.authorizeUrl('s', 'https://hub.example.com/cb', { environment: 'sandbox' })).origin).toBe('https://test.salesforce.com');
    expect(() => setup.oauth!.authorizeUrl('s', 'https://hub.example.com/cb', { environment: 'staging' })).toThrow(expect.objectContaining({ field: 'environment' }));
  });

  it('a JWT assertion: RS256, the app as issuer, the user as subject, the login host as audience, good for 3 minutes', () => {
    const fake = new FakeSalesforce();
    const now = Date.parse('2026-11-27T12:00:00Z');
    const [header, claims] = jwtAssertion({ clientId: 'consumer-key', username: 'u@example.com', loginUrl: 'https://test.salesforce.com/', privateKey: fake.jwtPrivateKey.replace(/\n/g, '\\n'), now }).split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'RS256' });
    expect(JSON.parse(Buffer.from(claims!, 'base64url').toString())).toEqual({ iss: 'consumer-key', sub: 'u@example.com', aud: 'https://test.salesforce.com', exp: now / 1000 + 180 });
  });
});
