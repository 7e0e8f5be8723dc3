import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createLogger } from '@verify-hub/core';
import { startServe, type RunningHub } from '../../cli/src/commands/serve';
import { purgeServeRedis } from '../webhooks-in/serve-stack';
import { FakeEngine } from '../fakes/engine';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { FakeMailchimp } from '../fakes/mailchimp';
import { loadHubConfig } from '../../cli/src/platforms';

/** Debian's chromium; E2E_CHROMIUM points elsewhere (another Chromium build) when needed. */
export const CHROMIUM_PATH = process.env.E2E_CHROMIUM ?? '/usr/bin/chromium';

export const INSTALL_HINT = `the browser tests need Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (Debian/Ubuntu), or point E2E_CHROMIUM at a Chromium binary`;

/**
 * Whether the browser tests run here: always when Chromium is installed; when it is not, they fail in CI
 * (CI=true or E2E_BROWSER_TESTS=required, which `.ci/run` sets) and are skipped with a note on a developer's
 * machine, so `npm install && npm test` still runs everything else.
 */
export function browserPolicy(env: NodeJS.ProcessEnv = process.env): 'run' | 'fail' | 'skip' {
  if (existsSync(CHROMIUM_PATH)) return 'run';
  return env.E2E_BROWSER_TESTS === 'required' || env.CI === 'true' ? 'fail' : 'skip';
}

/** Headless Chromium with no traffic of its own (this machine's network is closed) and a fresh profile. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

export const VIEWPORT = { width: 1366, height: 768 };

export const silentLogger = createLogger({ level: 'silent' });

export { until } from '../webhooks-in/serve-stack';

export interface Stack {
  hub: RunningHub;
  engine: FakeEngine;
  hubspot: FakeHubSpot;
  /** With an OAuth app registered for the hub's callback; its authorize page approves as `mailchimp.userToken`. */
  mailchimp: FakeMailchimp;
  adminToken: string;
  /** The hub's Redis prefix: the CLI (`verify-hub runs`) reads the same runs with it. */
  prefix: string;
  /** For the few direct API checks the tests make (what the UI claims against what the hub holds). */
  api(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * `verify-hub serve` wired from configuration as in production: the real pipeline and workers on the
 * test Redis under a prefix of its own, the fake engine over HTTP and FakeHubSpot as the HubSpot API.
 */
/** The Mailchimp OAuth app the stack's hub is configured with. */
export const MAILCHIMP_APP = { clientId: 'e2e-mailchimp-app', clientSecret: 'e2e-mailchimp-app-secret' };

export async function startStack(options: {
  adminToken: string;
  portal: { portalId: string; token: string };
  mailchimp: { apiKey: string; listId: string; oauthToken: string };
  /** The hub on the local engine (no ENGINE_URL), its keys under `engineKeyPrefix` in the test Redis. */
  localEngine?: { engineKeyPrefix: string };
}): Promise<Stack> {
  // The published shape plus verify-hub's extension fields (reason codes): the stack stands for a hub
  // on verify-hub's own engine, and the run page's Reasons table shows those codes.
  const engine = new FakeEngine({ extensions: true });
  await engine.start();
  const hubspot = new FakeHubSpot();
  await hubspot.start();
  hubspot.addPortal(options.portal);
  const mailchimp = await new FakeMailchimp().start();
  mailchimp.addAccount(options.mailchimp.apiKey, { dc: 'us7', accountName: 'Acme Newsletters' });
  mailchimp.addList(options.mailchimp.apiKey, options.mailchimp.listId);
  mailchimp.alias(options.mailchimp.oauthToken, options.mailchimp.apiKey);
  mailchimp.approveAuthorizationsWith(options.mailchimp.oauthToken);
  // The HubSpot connector reads the API base from the environment when a connection does not store one.
  const savedApiBase = process.env.HUBSPOT_API_BASE;
  process.env.HUBSPOT_API_BASE = hubspot.url;
  const uploadDir = mkdtempSync(join(tmpdir(), 'vh-e2e-'));
  const prefix = `test-e2e-${randomUUID().slice(0, 8)}`;
  const config = loadHubConfig({
    REDIS_URL: process.env.REDIS_URL,
    ...(options.localEngine ? { ENGINE_REDIS_PREFIX: options.localEngine.engineKeyPrefix } : { ENGINE_URL: engine.url, ENGINE_API_KEY: engine.apiKey }),
    HUB_ADMIN_TOKEN: options.adminToken,
    HUB_SECRET_KEY: 'e'.repeat(40),
    HUB_UPLOAD_DIR: uploadDir,
    HUBSPOT_API_BASE: hubspot.url,
    MAILCHIMP_API_BASE: mailchimp.apiBase,
    MAILCHIMP_LOGIN_BASE: mailchimp.loginBase,
    MAILCHIMP_CLIENT_ID: MAILCHIMP_APP.clientId,
    MAILCHIMP_CLIENT_SECRET: MAILCHIMP_APP.clientSecret,
    LOG_LEVEL: 'silent',
    VERIFY_HUB_REDIS_PREFIX: prefix,
    // A price, so the estimate and the run page show money beside credits.
    VERIFY_HUB_PRICE_PER_1000: '1.20',
  });
  const hub = await startServe(config, { port: 0, host: '127.0.0.1', logger: silentLogger });
  mailchimp.registerOAuthClient(MAILCHIMP_APP.clientId, MAILCHIMP_APP.clientSecret, `${hub.url}/oauth/mailchimp/callback`);

  return {
    hub,
    engine,
    hubspot,
    mailchimp,
    adminToken: options.adminToken,
    prefix,
    api: (path, init = {}) => fetch(`${hub.url}${path}`, { ...init, headers: { authorization: `Bearer ${options.adminToken}`, ...(init.headers ?? {}) } }),
    async stop() {
      await hub.close();
      await purgeServeRedis(prefix);
      await engine.stop();
      await hubspot.stop();
      await mailchimp.close();
      if (savedApiBase === undefined) delete process.env.HUBSPOT_API_BASE;
      else process.env.HUBSPOT_API_BASE = savedApiBase;
      rmSync(uploadDir, { recursive: true, force: true });
    },
  };
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations on the page as it is now (WCAG 2 A/AA rules), as "rule: element" lines; the context needs `bypassCSP` (the hub's CSP allows no inline script). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(`axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }).then((r) => r.violations.flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' '))))`);
}

/** Signs in through the sign-in page (the page must be showing it). */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Runs', exact: true }).waitFor();
}

/** A small RFC 4180 reader for the downloaded files (quoted fields with commas, `""`). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && body[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/**
 * Presses Tab until the focused element matches `matches` (its tag, type, label text, name or text), at
 * most `max` times: the keyboard-only path a user would take.
 */
export async function tabUntil(page: Page, matches: (focused: FocusedElement) => boolean, max = 40): Promise<FocusedElement> {
  const seen: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focused = await focusedElement(page);
    if (matches(focused)) return focused;
    seen.push(`${focused.tag}${focused.label ? `(${focused.label})` : ''}`);
  }
  throw new Error(`Tab never reached the element; focus went through: ${seen.join(' > ')}`);
}

export interface FocusedElement {
  tag: string;
  type: string;
  /** aria-label, else the text of its <label>, else its own text. */
  label: string;
  outlineStyle: string;
  boxShadow: string;
}

export function focusedElement(page: Page): Promise<FocusedElement> {
  // A string, so the page-side code needs no DOM types in this Node project.
  return page.evaluate(`(() => {
    const el = document.activeElement;
    if (!el) return { tag: '', type: '', label: '', outlineStyle: 'none', boxShadow: 'none' };
    const labels = el.labels ? Array.from(el.labels).map((l) => l.textContent.trim()).join(' ') : '';
    const style = getComputedStyle(el);
    return {
      tag: el.tagName.toLowerCase(),
      type: el.getAttribute('type') || '',
      label: (el.getAttribute('aria-label') || labels || el.textContent || '').trim(),
      outlineStyle: style.outlineStyle,
      boxShadow: style.boxShadow,
    };
  })()`);
}
