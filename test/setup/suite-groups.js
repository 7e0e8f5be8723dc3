const { readdirSync } = require('node:fs');
const { join } = require('node:path');

/**
 * Which suites run how (paths from the repository root). Every other suite is `in-process`: it runs
 * beside the others in any jest worker and is part of `npm run test:quick`.
 *
 * - `machine`: suites that need the machine to themselves (a Redis Cluster or Sentinel of their own,
 *   worker processes killed with -9, a browser). They take the machine lock (test/setup/machine-lock.js)
 *   so that two never run at once; the in-process suites run beside them.
 * - `spawns`: suites that start processes (the CLI, workers, builds, redocly, Python) but can share the
 *   machine. Like `machine`, they are left out of the quick loop.
 * - `scale`: in-process suites whose point is volume: thousands of contacts through the pipeline's
 *   workers, a 50,000-row file, a burst of requests. They run beside the others in `npm test` and are
 *   left out of the quick loop, where they took 180 of its 377 CPU-seconds (issue 30).
 */
const machine = [
  'test/sync-jobs/redis-cluster.test.ts',
  'test/sync-jobs/redis-sentinel.test.ts',
  'test/sync-jobs/redis-restart.test.ts',
  'test/sync-jobs/crash.test.ts',
  'test/e2e/',
];

const spawns = [
  'test/cli/cli.test.ts',
  'test/clients/js.test.ts',
  'test/clients/python.test.ts',
  'test/core/engine-transport.test.ts',
  // node deploy/image-files.js in a child.
  'test/deploy/image-files.test.ts',
  'test/engine/cli-engine.test.ts',
  'test/engine/openapi.test.ts',
  'test/hubspot/workflow-action.test.ts',
  'test/mcp/mcp-stdio.test.ts',
  'test/n8n/package-build.test.ts',
  // git repositories, npm pack and sbom, the whole build, Python: the release checks.
  'test/release/',
  // `verify-hub serve` as a process of its own (its memory growth under a zip bomb is measured).
  'test/security/uploads.test.ts',
  'test/webhooks-in/serve-forwarder-thread.test.ts',
  'test/webhooks-in/serve-webhook-forwarding.test.ts',
  'test/webhooks-in/serve-workflow-action.test.ts',
  'test/zapier/package.test.ts',
];

const scale = [
  'test/sync-jobs/auth-pause.test.ts', // 3,000 HubSpot contacts and 4,000 Mailchimp members, revoked mid-run
  'test/sync-jobs/pipeline.test.ts', // 20,000 contacts, then re-run; storms and pauses over thousands
  'test/sync-jobs/fair-shares.test.ts', // a 100,000-contact run beside others
  'test/sync-jobs/credit-limit.test.ts', // caps on 3,000 HubSpot contacts and 4,000 Mailchimp members
  'test/sync-jobs/file-progress.test.ts', // 5,000-row file runs watched as they go
  'test/sync-jobs/dashboard-pause.test.ts', // pauses mid-way through 2,500 rows
  'test/sync-jobs/file-runs.test.ts', // file runs of 2,500 rows through the workers
  'test/webhooks-in/serve-files.test.ts', // 5,000- and 2,500-row uploads cleaned through the hub
  'test/file/large.test.ts', // 50,000 rows, the product's limit
  'test/file/xlsx.test.ts', // 2,000-row workbooks, whole and cut short
  'test/hubspot/workflow-action-burst.test.ts', // 1,000 workflow-action calls in one burst
  'test/hubspot/pull.test.ts', // 25,000 contacts paged
  'test/salesforce/connector.test.ts', // 4,500 contacts through Bulk API jobs
  'test/cli/clean-fuzz.test.ts', // over 4,000 generated bad rows among good ones
];

/**
 * Suites known to leave a handle open, each with what is known: the open-handle check (environment.js)
 * prints a warning for them instead of failing, until the leak is fixed. Keep this empty.
 */
const knownOpenHandles = {};

/**
 * A suite may also name its group itself, so that a new platform's folder needs no line here:
 * `*.machine.test.ts` and `*.spawns.test.ts` (e.g. a platform's serve/worker acceptance suite).
 */
const namedGroup = /\.(machine|spawns)\.test\.ts$/;

/** `machine`, `spawns`, `scale` or `in-process`, for a path relative to the repository root. */
function groupOf(relativePath) {
  const path = relativePath.split('\\').join('/');
  const matches = (prefix) => (prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix);
  const named = namedGroup.exec(path);
  if (named) return named[1];
  if (machine.some(matches)) return 'machine';
  if (spawns.some(matches)) return 'spawns';
  if (scale.some(matches)) return 'scale';
  return 'in-process';
}

/**
 * The suites that take a slot of a lane (test/setup/machine-lock.js) before they start, and each lane's
 * slots: the `machine` suites one at a time; the platforms' acceptance suites (`<platform>/acceptance.spawns.test.ts`,
 * each a 25,000-contact sync through `serve` and two workers, a minute and a half of a core) two at a
 * time. Started together they starved each other past their bounds on a loaded machine.
 */
const LANE_SLOTS = { machine: 1, acceptance: 2 };

/** The lane a suite takes a slot of, or undefined. */
function laneOf(relativePath) {
  const path = relativePath.split('\\').join('/');
  if (groupOf(path) === 'machine') return 'machine';
  if (/(^|\/)acceptance\.spawns\.test\.ts$/.test(path)) return 'acceptance';
  return undefined;
}

/** Every suite under `rootDir`'s test/ (not the lint fixtures), as sorted paths relative to `rootDir`. */
function suitePaths(rootDir) {
  return readdirSync(join(rootDir, 'test'), { recursive: true })
    .map((file) => `test/${String(file).split('\\').join('/')}`)
    .filter((path) => path.endsWith('.test.ts') && !path.startsWith('test/lint-fixtures/'))
    .sort();
}

module.exports = { groupOf, laneOf, LANE_SLOTS, machine, spawns, scale, suitePaths, knownOpenHandles };
