import type { Response } from 'express';

/** Where the MCP sign-in page posts; the page itself, with the admin-token form. */
export const MCP_SIGN_IN_PATH = '/mcp-sign-in';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page asking the hub's admin to let an AI assistant in (the admin token); no scripts, not framed, not
 * cached. It names the client as it registered itself (anyone may register, so the name is a claim) and,
 * in bold, the host the code is sent to: that host, not the name, says who gets access.
 */
export function signInPage(res: Response, status: number, page: { requestId: string; clientId: string; clientName?: string; redirectUri: string; error?: string }): void {
  const who = page.clientName ? `An application calling itself “${escapeHtml(page.clientName)}”` : `An application (client ${escapeHtml(page.clientId)})`;
  const back = escapeHtml(new URL(page.redirectUri).host || page.redirectUri);
  res
    .status(status)
    .set({ 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'", 'Referrer-Policy': 'no-referrer' })
    .type('html')
    .send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in to verify-hub</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#222}label,input,button{display:block;width:100%;box-sizing:border-box}input{padding:.5rem;margin:.25rem 0 1rem}button{padding:.6rem;margin-top:.5rem}.error{color:#a00}</style></head>
<body><h1>Sign in to verify-hub</h1>
<p>${who} asks to verify email addresses through this hub. Its verifications use this hub's engine key and its credits.</p>
<p>Signing in sends access to <strong>${back}</strong>. Continue only if you started this sign-in from your assistant and that is where it runs.</p>
${page.error ? `<p class="error" role="alert">${escapeHtml(page.error)}</p>` : ''}
<form method="post" action="${MCP_SIGN_IN_PATH}">
<input type="hidden" name="request" value="${escapeHtml(page.requestId)}">
<label for="token">Admin token (HUB_ADMIN_TOKEN)</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit" name="action" value="allow">Sign in and allow</button>
<button type="submit" name="action" value="deny" formnovalidate>Cancel</button>
</form></body></html>`);
}
