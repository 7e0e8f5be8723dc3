import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';

/** The dashboard as the hub serves it: four files, bundled or copied from `webhooks-in/dashboard/`. */
export const DASHBOARD_FILES = ['index.html', 'app.js', 'app.css', 'favicon.svg'] as const;
export type DashboardFileName = (typeof DASHBOARD_FILES)[number];
export type DashboardFiles = Record<DashboardFileName, Buffer>;

/** `webhooks-in/`, from src/ (ts-jest, ts-node) and from dist/ (the build) alike. */
const packageRoot = join(__dirname, '..');

/** The front end's sources: `src/` (Preact + TSX) and `public/` (the page, the stylesheet, the icon). */
export const DASHBOARD_SOURCE_DIR = join(packageRoot, 'dashboard');
/** Where `npm run build` puts the bundle (scripts/build-dashboard.js). */
export const DASHBOARD_BUILT_DIR = join(packageRoot, 'dist', 'dashboard');

/**
 * Bundles the single-page app with esbuild: one IIFE script, Preact included, minified, no source
 * map; the page, the stylesheet and the icon are copied as they are. esbuild is loaded only here, so
 * a hub serving a built bundle never needs it.
 */
export async function bundleDashboard(sourceDir: string = DASHBOARD_SOURCE_DIR): Promise<DashboardFiles> {
  return (await bundle(sourceDir)).files;
}

/** The bundle and esbuild's metafile (what went into it: the build writes the third-party notices from it). */
async function bundle(sourceDir: string): Promise<{ files: DashboardFiles; metafile: Metafile }> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [join(sourceDir, 'src', 'main.tsx')],
    tsconfig: join(sourceDir, 'tsconfig.json'),
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
    metafile: true,
  });
  const script = result.outputFiles[0];
  if (!script) throw new Error('esbuild produced no output for the dashboard');
  const publicDir = join(sourceDir, 'public');
  const [html, css, icon] = await Promise.all([readFile(join(publicDir, 'index.html')), readFile(join(publicDir, 'app.css')), readFile(join(publicDir, 'favicon.svg'))]);
  return { files: { 'index.html': html, 'app.js': Buffer.from(script.contents), 'app.css': css, 'favicon.svg': icon }, metafile: result.metafile };
}

/** Reads a bundle written by `buildDashboard`. */
export async function readBuiltDashboard(builtDir: string = DASHBOARD_BUILT_DIR): Promise<DashboardFiles> {
  const bodies = await Promise.all(DASHBOARD_FILES.map((name) => readFile(join(builtDir, name))));
  return Object.fromEntries(DASHBOARD_FILES.map((name, i) => [name, bodies[i]])) as DashboardFiles;
}

/**
 * The build step (`npm run build`, after `tsc -b`): bundles the dashboard and writes it to `outDir`;
 * `metafile` says which packages went into app.js.
 */
export async function buildDashboard(options: { sourceDir?: string; outDir?: string } = {}): Promise<{ outDir: string; bytes: Record<DashboardFileName, number>; metafile: Metafile }> {
  const outDir = options.outDir ?? DASHBOARD_BUILT_DIR;
  const { files, metafile } = await bundle(options.sourceDir ?? DASHBOARD_SOURCE_DIR);
  await mkdir(outDir, { recursive: true });
  await Promise.all(DASHBOARD_FILES.map((name) => writeFile(join(outDir, name), files[name])));
  return { outDir, bytes: Object.fromEntries(DASHBOARD_FILES.map((name) => [name, files[name].length])) as Record<DashboardFileName, number>, metafile };
}
