import { randomBytes } from 'node:crypto';
import { HOOK_SIGNATURE_HEADER, verifyHookSignature } from '@verify-hub/core';
import type { Bundle, ZObject } from 'zapier-platform-core';
import { headerOf } from '../raw-request-header';
import { FINISHED_EVENTS, HUB_PATHS, hubRequest, type FinishedEvent } from '../hub-api';

/** A finished run as the hub sends it (RunRecord plus progress); only the fields the trigger relies on are typed. */
export interface RunView {
  id: string;
  status: string;
  [field: string]: unknown;
}

interface Subscription {
  id: string;
  secret?: string;
}

const STATUS_OF: Record<FinishedEvent, string> = { 'run.completed': 'completed', 'run.failed': 'failed', 'run.cancelled': 'cancelled' };

/** The outcomes the Zap asked for (default: all three), as hub event names. */
function chosenEvents(bundle: Bundle): FinishedEvent[] {
  const raw = bundle.inputData?.outcomes;
  const items = (Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : []).map((x) => `run.${String(x).trim().toLowerCase()}`);
  const chosen = FINISHED_EVENTS.filter((e) => items.includes(e));
  return chosen.length > 0 ? chosen : [...FINISHED_EVENTS];
}

/** Registers the Zap's hook URL with the hub; the answer (id and signing secret) becomes `bundle.subscribeData`. */
export async function subscribe(z: ZObject, bundle: Bundle): Promise<Subscription> {
  const secret = randomBytes(32).toString('base64url');
  const { data } = await hubRequest<{ id?: unknown; secret?: unknown }>(z, bundle, {
    method: 'POST',
    path: HUB_PATHS.hooks,
    body: { url: bundle.targetUrl, events: chosenEvents(bundle), secret, label: 'Zapier: List Cleaning Finished' },
  });
  if (typeof data?.id !== 'string') throw new z.errors.Error('The verify-hub service did not return a webhook id; is the Hub Service URL right?', 'HUB_BAD_RESPONSE', 502);
  return { id: data.id, secret: typeof data.secret === 'string' ? data.secret : secret };
}

/** Removes the hook; one already gone (404) is fine. */
export async function unsubscribe(z: ZObject, bundle: Bundle): Promise<{ id: string; removed: boolean }> {
  const id = (bundle.subscribeData as Subscription | undefined)?.id;
  if (!id) return { id: '', removed: false };
  const { status } = await hubRequest(z, bundle, { method: 'DELETE', path: HUB_PATHS.hook(id), allow: [404] });
  return { id, removed: status !== 404 };
}

/**
 * One delivery: checks its signature with the secret kept at subscribe time (a forged or replayed
 * delivery fails loudly instead of starting the Zap), then returns the run.
 */
export async function performHook(z: ZObject, bundle: Bundle): Promise<RunView[]> {
  const secret = (bundle.subscribeData as Subscription | undefined)?.secret;
  const raw = bundle.rawRequest;
  // Zapier hands hook performs the raw request; should a runtime not, the delivery cannot be checked.
  if (secret && raw?.content === undefined) z.console.log('List Cleaning Finished: no raw request to check the signature against');
  else if (secret) {
    const valid = verifyHookSignature(secret, headerOf(raw?.headers, HOOK_SIGNATURE_HEADER), raw?.content ?? '');
    if (!valid) throw new z.errors.Error('Ignored a List Cleaning Finished delivery without a valid verify-hub signature.', 'BAD_SIGNATURE', 401);
  }
  const body = (bundle.cleanedRequest ?? {}) as { run?: RunView; event?: string } & Partial<RunView>;
  const run = body.run ?? (typeof body.id === 'string' ? (body as RunView) : undefined);
  if (!run || typeof run.id !== 'string') return [];
  const wanted = chosenEvents(bundle).map((e) => STATUS_OF[e]);
  return wanted.includes(run.status) ? [run] : [];
}

/** Recent finished runs, for the Zap editor's test step. */
export async function listRecentRuns(z: ZObject, bundle: Bundle): Promise<RunView[]> {
  const wanted = chosenEvents(bundle).map((e) => STATUS_OF[e]);
  const { data } = await hubRequest<{ runs?: RunView[] } | RunView[]>(z, bundle, { method: 'GET', path: HUB_PATHS.runs, params: wanted.length === 1 ? { status: wanted[0]!, limit: 10 } : { limit: 50 } });
  const runs = Array.isArray(data) ? data : (data?.runs ?? []);
  return runs.filter((r) => r && typeof r.id === 'string' && wanted.includes(r.status)).slice(0, 10);
}

const SAMPLE_RUN: RunView = {
  id: 'run_01JDX3K8Q4M2V7',
  platform: 'mailchimp',
  connectionId: 'mailchimp-us21-7c3f9a',
  scope: 'audience:4b7e21c9d0',
  status: 'completed',
  statusReason: 'finished: every contact was verified and written back',
  options: { dryRun: false, maxCredits: 5000, freshnessDays: 30 },
  counters: { pulled: 1240, skipped: 12, cached: 310, verified: 918, unknown: 14, written: 1199, unchanged: 41, failed: 0, credits: 904 },
  progress: { done: 1240, pulled: 1240, percent: 100 },
  createdAt: '2026-11-20T13:58:02.000Z',
  startedAt: '2026-11-20T13:58:03.000Z',
  finishedAt: '2026-11-20T14:06:41.000Z',
};

export const listCleaningFinished = {
  key: 'list_cleaning_finished',
  noun: 'List Cleaning',
  display: {
    label: 'List Cleaning Finished',
    description: 'Triggers when a verify-hub list cleaning run (HubSpot, Mailchimp or file) finishes: completed, failed or cancelled.',
  },
  operation: {
    type: 'hook' as const,
    inputFields: [
      {
        key: 'outcomes',
        label: 'Outcomes',
        type: 'string' as const,
        list: true,
        required: false,
        choices: { completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled' },
        helpText: 'Which finished runs start the Zap. Leave empty for all three.',
      },
    ],
    performSubscribe: subscribe,
    performUnsubscribe: unsubscribe,
    perform: performHook,
    performList: listRecentRuns,
    sample: SAMPLE_RUN,
    outputFields: [
      { key: 'id', label: 'Run ID' },
      { key: 'status', label: 'Outcome (completed, failed or cancelled)' },
      { key: 'statusReason', label: 'Outcome Details' },
      { key: 'platform', label: 'Platform (hubspot, mailchimp or file)' },
      { key: 'connectionId', label: 'Connection ID' },
      { key: 'scope', label: 'Scope (list, audience or file)' },
      { key: 'counters__pulled', label: 'Contacts Read', type: 'integer' as const },
      { key: 'counters__skipped', label: 'Contacts Skipped', type: 'integer' as const },
      { key: 'counters__cached', label: 'Served From Cache (no credit)', type: 'integer' as const },
      { key: 'counters__verified', label: 'Contacts Verified', type: 'integer' as const },
      { key: 'counters__unknown', label: 'Unknown Results (not billed, re-checked later)', type: 'integer' as const },
      { key: 'counters__written', label: 'Contacts Updated', type: 'integer' as const },
      { key: 'counters__unchanged', label: 'Contacts Already Up to Date', type: 'integer' as const },
      { key: 'counters__failed', label: 'Contacts Failed', type: 'integer' as const },
      { key: 'counters__credits', label: 'Credits Used', type: 'integer' as const },
      { key: 'progress__done', label: 'Contacts Through (updated, up to date or failed)', type: 'integer' as const },
      { key: 'progress__pulled', label: 'Contacts to Go Through', type: 'integer' as const },
      { key: 'progress__percent', label: 'Progress (%)', type: 'integer' as const },
      { key: 'options__dryRun', label: 'Dry Run', type: 'boolean' as const },
      { key: 'options__maxCredits', label: 'Credit Limit', type: 'integer' as const },
      { key: 'options__freshnessDays', label: 'Reuse Results Younger Than (Days)', type: 'integer' as const },
      { key: 'createdAt', label: 'Created At', type: 'datetime' as const },
      { key: 'startedAt', label: 'Started At', type: 'datetime' as const },
      { key: 'finishedAt', label: 'Finished At', type: 'datetime' as const },
    ],
  },
};
