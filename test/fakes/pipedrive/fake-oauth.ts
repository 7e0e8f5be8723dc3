import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Pipedrive's OAuth server for the fake: `POST /oauth/token` with the app's basic auth, for
 * `authorization_code` (a code handed out by `issueCode`) and `refresh_token`; answers carry
 * `api_domain`. Access tokens expire; `revokeAll` makes every token and refresh token refused.
 */
export class FakeOAuth {
  clientId = 'pipedrive-app-client';
  clientSecret = 'pipedrive-app-secret-0123456789';
  apiDomain = '';
  accessTtlSeconds = 3600;
  private codes = new Set<string>();
  private access = new Map<string, number>();
  private refresh = new Set<string>();
  refreshes = 0;

  issueCode(): string {
    const code = randomBytes(8).toString('hex');
    this.codes.add(code);
    return code;
  }

  validAccessToken(token: string): boolean {
    const expires = this.access.get(token);
    return expires !== undefined && expires > Date.now();
  }

  revokeAll(): void {
    this.access.clear();
    this.refresh.clear();
  }

  private issue() {
    const access_token = `at-${randomBytes(12).toString('hex')}`;
    const refresh_token = `rt-${randomBytes(12).toString('hex')}`;
    this.access.set(access_token, Date.now() + this.accessTtlSeconds * 1000);
    this.refresh.add(refresh_token);
    return { access_token, refresh_token, token_type: 'Bearer', expires_in: this.accessTtlSeconds, scope: 'base,contacts:full,admin', api_domain: this.apiDomain };
  }

  handle(req: IncomingMessage, url: URL, raw: string, send: (status: number, body: unknown) => void): void {
    if (req.method !== 'POST' || url.pathname !== '/oauth/token') return send(404, { success: false, error: 'not found' });
    const expected = `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return send(401, { success: false, message: 'Invalid client' });
    const form = new URLSearchParams(raw);
    if (form.get('grant_type') === 'authorization_code' && this.codes.delete(form.get('code') ?? '')) return send(200, this.issue());
    if (form.get('grant_type') === 'refresh_token' && this.refresh.delete(form.get('refresh_token') ?? '')) {
      this.refreshes++;
      return send(200, this.issue());
    }
    send(400, { success: false, message: 'Invalid grant' });
  }
}
