import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface OAuthAnswer {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

interface Grant {
  scopes: Set<string>;
  refreshToken: string;
}

/**
 * Klaviyo's OAuth as its guide describes it, for one app: the authorize step (which here consents at
 * once and redirects with a code), the token endpoint (authorization_code with a PKCE S256 verifier,
 * and refresh_token; client id and secret in HTTP Basic; access tokens valid `accessTtlSeconds`), and
 * revoke. Records refreshes and revocations.
 */
export class FakeKlaviyoOAuth {
  readonly clientId = 'fake-klaviyo-client';
  readonly clientSecret = randomBytes(16).toString('hex');
  accessTtlSeconds = 3600;
  /** Scopes the user grants at the authorize step (default: what the app asked for). */
  grantScopes?: string[];
  readonly refreshes: string[] = [];
  readonly revoked: string[] = [];
  private readonly codes = new Map<string, { challenge: string; redirectUri: string; scopes: string[] }>();
  private readonly access = new Map<string, { grant: Grant; expiresAt: number }>();
  private readonly refresh = new Map<string, Grant>();

  constructor(private readonly base: () => string) {}

  scopesOfAccessToken(token: string): Set<string> | undefined {
    const found = this.access.get(token);
    return found && found.expiresAt > Date.now() && this.refresh.has(found.grant.refreshToken) ? found.grant.scopes : undefined;
  }

  /** Every access token expires now (the next call must refresh). */
  expireAccessTokens(): void {
    for (const entry of this.access.values()) entry.expiresAt = 0;
  }

  handle(method: string, url: URL, headers: IncomingHttpHeaders, body: string): OAuthAnswer {
    if (method === 'GET' && url.pathname === '/oauth/authorize') return this.authorize(url);
    if (!this.clientAuthenticated(headers)) return { status: 401, headers: { 'content-type': 'application/json' }, body: { error: 'invalid_client' } };
    const form = new URLSearchParams(body);
    if (method === 'POST' && url.pathname === '/oauth/token') return this.token(form);
    if (method === 'POST' && url.pathname === '/oauth/revoke') {
      const token = form.get('token') ?? '';
      if (!this.refresh.delete(token)) return { status: 400, headers: { 'content-type': 'application/json' }, body: { error: 'invalid_request' } };
      this.revoked.push(token);
      return { status: 200, headers: {}, body: undefined };
    }
    return { status: 404, headers: {}, body: undefined };
  }

  private clientAuthenticated(headers: IncomingHttpHeaders): boolean {
    const basic = /^Basic (.+)$/.exec(String(headers.authorization ?? ''))?.[1];
    return basic !== undefined && Buffer.from(basic, 'base64').toString('utf8') === `${this.clientId}:${this.clientSecret}`;
  }

  private authorize(url: URL): OAuthAnswer {
    const q = url.searchParams;
    if (q.get('client_id') !== this.clientId || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
      return { status: 400, headers: { 'content-type': 'application/json' }, body: { error: 'invalid_request' } };
    }
    const code = randomBytes(12).toString('hex');
    const asked = (q.get('scope') ?? '').split(/\s+/).filter(Boolean);
    this.codes.set(code, { challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri') ?? '', scopes: this.grantScopes ?? asked });
    const back = new URL(q.get('redirect_uri') ?? `${this.base()}/`);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state') ?? '');
    return { status: 302, headers: { location: back.toString() }, body: undefined };
  }

  private issue(grant: Grant): OAuthAnswer {
    const accessToken = randomBytes(16).toString('hex');
    this.access.set(accessToken, { grant, expiresAt: Date.now() + this.accessTtlSeconds * 1000 });
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { access_token: accessToken, token_type: 'Bearer', expires_in: this.accessTtlSeconds, refresh_token: grant.refreshToken, scope: [...grant.scopes].join(' ') },
    };
  }

  private token(form: URLSearchParams): OAuthAnswer {
    const refused = { status: 400, headers: { 'content-type': 'application/json' }, body: { error: 'invalid_grant' } };
    if (form.get('grant_type') === 'authorization_code') {
      const code = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!code || code.redirectUri !== (form.get('redirect_uri') ?? '') || createHash('sha256').update(verifier).digest('base64url') !== code.challenge) return refused;
      const grant: Grant = { scopes: new Set(code.scopes), refreshToken: randomBytes(16).toString('hex') };
      this.refresh.set(grant.refreshToken, grant);
      return this.issue(grant);
    }
    if (form.get('grant_type') === 'refresh_token') {
      const grant = this.refresh.get(form.get('refresh_token') ?? '');
      if (!grant) return refused;
      this.refreshes.push(grant.refreshToken);
      return this.issue(grant);
    }
    return { status: 400, headers: { 'content-type': 'application/json' }, body: { error: 'unsupported_grant_type' } };
  }
}
