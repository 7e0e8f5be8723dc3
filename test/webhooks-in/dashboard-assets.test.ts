import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { createLogger } from '@verify-hub/core';
import { dashboardRoutes, DASHBOARD_CSP } from '../../webhooks-in/src/dashboard';
import { DASHBOARD_BUILT_DIR, DASHBOARD_SOURCE_DIR } from '../../webhooks-in/src/dashboard-bundle';
import { errorHandler } from '../../webhooks-in/src/http-errors';

const silentLogger = createLogger({ level: 'silent' });

/** The dashboard's routes alone, as the hub mounts them, with the hub's error answers. */
function dashboardApp(options: Parameters<typeof dashboardRoutes>[0] = {}) {
  const app = express();
  app.use(dashboardRoutes({ logger: silentLogger, ...options }));
  app.use(errorHandler(silentLogger));
  return app;
}

/** Every absolute URL in a text: `http(s)://…` and protocol-relative `//host` in attributes. */
const absoluteUrls = (text: string) => [...text.matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"'`)<>]*/gi)].map((m) => m[0]);

describe('the dashboard assets', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'vh-dashboard-'));
  // From source: no build is read, even when the checkout has one.
  const fromSource = dashboardApp({ builtDir: join(tmp, 'no-build-here') });

  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('defaults to the build in webhooks-in/dist/dashboard and the sources in webhooks-in/dashboard', () => {
    expect(DASHBOARD_BUILT_DIR).toBe(join(__dirname, '..', '..', 'webhooks-in', 'dist', 'dashboard'));
    expect(DASHBOARD_SOURCE_DIR).toBe(join(__dirname, '..', '..', 'webhooks-in', 'dashboard'));
  });

  it('GET / serves the page with a strict Content-Security-Policy, no inline script and nothing from other hosts', async () => {
    const res = await request(fromSource).get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toBe(DASHBOARD_CSP);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-cache');

    const html = res.text;
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts).toHaveLength(1);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\ssrc="\/assets\/app\.js\?v=[\w-]+"/);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+=/i); // no inline event handlers either
    expect(html).not.toMatch(/<style\b|\sstyle=/i);
    expect(html).toContain('href="/assets/app.css?v=');
    expect(absoluteUrls(html)).toEqual([]);
  });

  it('every asset the page links to is served', async () => {
    const html = (await request(fromSource).get('/')).text;
    const links = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThanOrEqual(3);
    for (const link of links) {
      const res = await request(fromSource).get(link);
      expect({ link, status: res.status }).toEqual({ link, status: 200 });
    }
  });

  it('/assets/app.js is the bundled app, Preact included, and fetches from no other host', async () => {
    const res = await request(fromSource).get('/assets/app.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript; charset=utf-8/);
    const js = res.text;
    expect(js.length).toBeGreaterThan(10_000);
    expect(js).toContain('Sign in to verify-hub'); // the app's own code, bundled
    expect(js).toContain('X-VerifyHub-CSRF');
    expect(js).not.toMatch(/\brequire\(|\bimport\s*\(/); // one self-contained script
    // The only absolute URLs are XML namespace names (Preact's SVG/MathML), never fetched.
    for (const url of absoluteUrls(js)) expect(url).toMatch(/^http:\/\/www\.w3\.org\//);
    expect(js).not.toMatch(/fetch\(\s*["'`](?:https?:)?\/\//);
  });

  it('/assets/app.css and the icon are served; the stylesheet loads nothing from elsewhere', async () => {
    const css = await request(fromSource).get('/assets/app.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.text).toContain(':focus-visible');
    expect(css.text).not.toMatch(/@import|url\(/);
    const icon = await request(fromSource).get('/assets/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
  });

  it('a versioned asset is cached for good, an unversioned one revalidated, and an unchanged one answers 304', async () => {
    const html = (await request(fromSource).get('/')).text;
    const versioned = /src="(\/assets\/app\.js\?v=[^"]+)"/.exec(html)![1]!;
    const cached = await request(fromSource).get(versioned);
    expect(cached.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const plain = await request(fromSource).get('/assets/app.js?v=stale');
    expect(plain.headers['cache-control']).toBe('no-cache');
    const again = await request(fromSource).get('/assets/app.js').set('If-None-Match', cached.headers.etag as string);
    expect(again.status).toBe(304);
    expect(again.text ?? '').toBe('');
  });

  it('prefers the built output when there is one', async () => {
    const built = join(tmp, 'built');
    mkdirSync(built, { recursive: true });
    writeFileSync(join(built, 'index.html'), '<!doctype html><link rel="stylesheet" href="/assets/app.css"><script src="/assets/app.js" defer></script>');
    writeFileSync(join(built, 'app.js'), 'console.log("the built bundle");');
    writeFileSync(join(built, 'app.css'), 'body { color: black }');
    writeFileSync(join(built, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    const app = dashboardApp({ builtDir: built, sourceDir: join(tmp, 'no-sources') });

    const js = await request(app).get('/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.text).toBe('console.log("the built bundle");');
    const page = await request(app).get('/');
    expect(page.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    expect(page.text).toMatch(/<script src="\/assets\/app\.js\?v=[\w-]+" defer>/);
    expect((await request(app).get('/assets/app.css')).text).toBe('body { color: black }');
  });

  it('answers 503 when there is neither a build nor sources it can bundle, and tries again on the next request', async () => {
    const later = join(tmp, 'built-later');
    const app = dashboardApp({ builtDir: later, sourceDir: join(tmp, 'nothing') });
    const res = await request(app).get('/');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'the dashboard is not available: build it with `npm run build`', code: 'DASHBOARD_UNAVAILABLE' });

    mkdirSync(later, { recursive: true });
    for (const name of ['index.html', 'app.js', 'app.css', 'favicon.svg']) writeFileSync(join(later, name), `/* ${name} */`);
    const retried = await request(app).get('/assets/app.js');
    expect(retried.status).toBe(200);
    expect(retried.text).toBe('/* app.js */');
  });

  it('leaves every other path to the routes after it', async () => {
    const app = express();
    app.use(dashboardRoutes({ logger: silentLogger, builtDir: join(tmp, 'no-build-here') }));
    app.use((_req, res) => res.status(418).end());
    expect((await request(app).get('/api/runs')).status).toBe(418);
    expect((await request(app).post('/')).status).toBe(418);
    expect((await request(app).get('/assets/other.js')).status).toBe(418);
  });
});
