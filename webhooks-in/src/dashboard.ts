import { createHash } from 'node:crypto';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { Router, type Request, type Response } from 'express';
import type { Logger } from '@verify-hub/core';
import { bundleDashboard, DASHBOARD_BUILT_DIR, DASHBOARD_SOURCE_DIR, readBuiltDashboard, type DashboardFileName, type DashboardFiles } from './dashboard-bundle';
import { HttpError } from './http-errors';

export interface DashboardRoutesOptions {
  logger?: Logger;
  /** A bundle written by `npm run build`; served when it holds one. */
  builtDir?: string;
  /** The front end's sources, bundled in memory (once, on the first request) when there is no build. */
  sourceDir?: string;
}

/**
 * The page's Content-Security-Policy: everything from the hub itself, no inline script or style
 * element, no plugins, no framing, forms and the API on this origin only.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  /** Part of the page's links (`?v=`): an asset asked for with its current version may be cached for good. */
  version: string;
}

type Assets = Record<DashboardFileName, Asset>;

const TYPES: Record<DashboardFileName, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

const ONE_YEAR = 'public, max-age=31536000, immutable';

function asset(name: DashboardFileName, body: Buffer): Asset {
  const version = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { body, type: TYPES[name], etag: `"${version}"`, version };
}

/** The page, its asset links carrying the assets' versions, so a new build is fetched at once and an old one can be cached. */
function assetsOf(files: DashboardFiles): Assets {
  const js = asset('app.js', files['app.js']);
  const css = asset('app.css', files['app.css']);
  const icon = asset('favicon.svg', files['favicon.svg']);
  const html = files['index.html']
    .toString('utf8')
    .replace('"/assets/app.js"', `"/assets/app.js?v=${js.version}"`)
    .replace('"/assets/app.css"', `"/assets/app.css?v=${css.version}"`)
    .replace('"/assets/favicon.svg"', `"/assets/favicon.svg?v=${icon.version}"`);
  return { 'index.html': asset('index.html', Buffer.from(html, 'utf8')), 'app.js': js, 'app.css': css, 'favicon.svg': icon };
}

const exists = (path: string) => access(path).then(
  () => true,
  () => false,
);

/**
 * The web dashboard (issue 11): `GET /` is the single-page app's document, `/assets/*` its script,
 * stylesheet and icon. They are public (the data behind them is not: the admin API asks for a session).
 * The bundle is the build's (`dist/dashboard/`) when there is one; otherwise, running from source
 * (tests, ts-node), esbuild bundles it in memory on the first request and it is kept.
 */
export function dashboardRoutes(options: DashboardRoutesOptions = {}): Router {
  const builtDir = options.builtDir ?? DASHBOARD_BUILT_DIR;
  const sourceDir = options.sourceDir ?? DASHBOARD_SOURCE_DIR;
  let loading: Promise<Assets> | undefined;

  const load = async (): Promise<Assets> => {
    const started = Date.now();
    if (await exists(join(builtDir, 'app.js'))) {
      const assets = assetsOf(await readBuiltDashboard(builtDir));
      options.logger?.info({ dir: builtDir }, 'dashboard: serving the built bundle');
      return assets;
    }
    try {
      const assets = assetsOf(await bundleDashboard(sourceDir));
      options.logger?.info({ ms: Date.now() - started, bytes: assets['app.js'].body.length }, 'dashboard: bundled from source');
      return assets;
    } catch (error) {
      options.logger?.error({ err: error }, 'dashboard: bundling the front end failed');
      throw new HttpError(503, 'DASHBOARD_UNAVAILABLE', 'the dashboard is not available: build it with `npm run build`');
    }
  };

  // One load at a time and then kept; a failed one is tried again on the next request.
  const assets = () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));

  const send = (req: Request, res: Response, item: Asset, cacheControl: string) => {
    res.set({ 'Content-Type': item.type, ETag: item.etag, 'Cache-Control': cacheControl, 'X-Content-Type-Options': 'nosniff' });
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    res.send(item.body);
  };

  const router = Router();

  router.get('/', async (req, res) => {
    const page = (await assets())['index.html'];
    res.set({
      'Content-Security-Policy': DASHBOARD_CSP,
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
    // Always revalidated: it names the current assets' versions.
    send(req, res, page, 'no-cache');
  });

  for (const name of ['app.js', 'app.css', 'favicon.svg'] as const) {
    router.get(`/assets/${name}`, async (req, res) => {
      const item = (await assets())[name];
      send(req, res, item, req.query.v === item.version ? ONE_YEAR : 'no-cache');
    });
  }

  return router;
}
