import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { WebhookRejectedError, reasonInWords, type PlatformContext, type PlatformRequest, type PlatformResponse, type PlatformRoute, type Verification } from '@verify-hub/core';
import { pipedriveEnvironment } from './environment';
import { pipedriveConnectionId } from './settings';

/** The custom panel's address under the hub: `/platforms/pipedrive/panel` (Developer Hub > App extensions > Custom panel). */
export const PANEL_PATH = '/panel';

interface PanelCall {
  connectionId: string;
  personId: string;
}

/**
 * The iframe request Pipedrive makes for the custom panel carries `token`: a JWT (HS256) signed with
 * the panel's JWT secret, or the app's client secret when the panel has none, naming the user and
 * company that load it. It is verified (signature, expiry) and must match the query's company and user.
 */
export function verifyPanelRequest(request: Pick<PlatformRequest, 'query'>, secret: string): PanelCall {
  const { token, companyId, userId, selectedIds, resource } = request.query;
  if (!token) throw new WebhookRejectedError('query.token: Pipedrive signs every panel request with a JWT', 401);
  let claims: jwt.JwtPayload;
  try {
    const decoded = jwt.verify(token, secret, { algorithms: ['HS256'] });
    if (typeof decoded === 'string') throw new Error('not an object');
    claims = decoded;
  } catch {
    throw new WebhookRejectedError('query.token: not signed by this app, or expired', 401);
  }
  const company = String(claims.companyId ?? '');
  if (!/^\d+$/.test(company) || (companyId && companyId !== company) || (userId && claims.userId !== undefined && String(claims.userId) !== userId)) {
    throw new WebhookRejectedError('query.companyId: does not match the signed token', 401);
  }
  if (resource && resource !== 'person') throw new WebhookRejectedError('query.resource: this panel is for persons', 400);
  const personId = (selectedIds ?? '').split(',')[0] ?? '';
  if (!/^\d+$/.test(personId)) throw new WebhookRejectedError('query.selectedIds: the person shown is required', 400);
  return { connectionId: pipedriveConnectionId(company), personId };
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** One address and its verdict as the panel shows it: "not checked yet" when the hub has none. */
export function panelView(rows: { email: string; verdict?: Verification }[], nonce = ''): string {
  const items = rows.map(({ email, verdict }) =>
    verdict
      ? `<li><strong>${escape(email)}</strong>: <span class="risk ${verdict.risk}">${verdict.risk}</span>, score ${Math.round(verdict.score)}, ${escape(reasonInWords(verdict.reason) ?? verdict.reason)} <small>(checked ${escape(verdict.checkedAt.slice(0, 10))})</small></li>`
      : `<li><strong>${escape(email)}</strong>: not checked yet</li>`,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Email verification</title>
<script nonce="${nonce}" src="https://cdn.jsdelivr.net/npm/@pipedrive/app-extensions-sdk@0/dist/index.umd.js"></script></head>
<body><ul>${items.join('') || '<li>This person has no email address.</li>'}</ul>
<button id="again" type="button">Verify again</button>
<script nonce="${nonce}">
(async () => { try { await new AppExtensionsSDK().initialize(); } catch (e) {} })();
document.getElementById('again').addEventListener('click', async (event) => {
  event.target.disabled = true;
  const answer = await fetch(location.pathname + '/verify' + location.search, { method: 'POST' });
  if (answer.ok) location.reload(); else event.target.textContent = 'Could not verify: try again';
});
</script></body></html>`;
}

/**
 * The custom panel in the person view: the hub serves it (GET) and its "verify again" (POST), each
 * request checked as Pipedrive signs it. Only companies with a stored connection are answered; a fresh
 * check goes through the workers' rate-limited engine and is written back to the person.
 */
export function panelRoutes(context: PlatformContext): PlatformRoute[] {
  const env = pipedriveEnvironment.read(context.config);
  const secret = env.PIPEDRIVE_PANEL_JWT_SECRET ?? env.PIPEDRIVE_CLIENT_SECRET;
  const host = context.host;
  if (!secret || !host) return [];
  const addresses = async (call: PanelCall) => {
    if (!(await context.connections?.get(call.connectionId))) throw new WebhookRejectedError('query.companyId: this Pipedrive company is not connected to the hub', 401);
    const connector = await context.openConnector(call.connectionId);
    // The person's primary address has its id; the others `<id>:address:<n>` (mapping.ts).
    const ids = [call.personId, ...Array.from({ length: 9 }, (_, n) => `${call.personId}:address:${n + 1}`)];
    return { connector, contacts: await connector.pullByIds!(ids) };
  };
  // Framed by Pipedrive only; its SDK from the CDN its docs name and our one inline script (by nonce);
  // no referrer, as the address holds the signed token.
  const html = (render: (nonce: string) => string): PlatformResponse => {
    const nonce = randomBytes(16).toString('base64');
    const policy = `default-src 'none'; script-src 'nonce-${nonce}' https://cdn.jsdelivr.net; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors https://*.pipedrive.com`;
    return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': policy, 'referrer-policy': 'no-referrer' }, body: render(nonce) };
  };
  return [
    {
      method: 'GET',
      path: PANEL_PATH,
      async handle(request) {
        const call = verifyPanelRequest(request, secret);
        const { contacts } = await addresses(call);
        const rows = await Promise.all(contacts.map(async (c) => ({ email: c.email, verdict: await host.storedVerdict(c.email) })));
        return html((nonce) => panelView(rows, nonce));
      },
    },
    {
      method: 'POST',
      path: `${PANEL_PATH}/verify`,
      async handle(request) {
        const call = verifyPanelRequest(request, secret);
        const { connector, contacts } = await addresses(call);
        const primary = contacts[0];
        if (!primary) return { status: 200, body: { verified: 0 } };
        const verification = await host.verifyNow(primary.email);
        await connector.write([{ contact: primary, verification }], {});
        return { status: 200, body: { verified: 1, risk: verification.risk } };
      },
    },
  ];
}
