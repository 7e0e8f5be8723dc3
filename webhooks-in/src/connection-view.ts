import type { ConnectionRecord } from '@verify-hub/core';
import type { RunRecord } from '@verify-hub/sync-jobs';
import type { PlatformSetup } from './platform-setup';
import type { ConnectionAuth, ConnectionView, PlatformInfo } from './api-types';

export type { ConnectionAuth, ConnectionState, ConnectionView, PlatformInfo } from './api-types';

export const EXPIRY_WARNING_MS = 7 * 24 * 60 * 60 * 1000;

/** A user's own pause and the credit cap are choices, not trouble (the pipeline's statusReason wording). */
const CHOSEN_PAUSES = [/^paused by a user/i, /^stopped at the credit limit/i, /^credit cap/i];
/** Settings whose names look secret are never shown, whatever a connector stores there. */
const SECRET_NAME = /secret|token|key|password|credential/i;

function authOf(credentials: ConnectionRecord['credentials']): ConnectionAuth {
  if (credentials.apiKey) return 'api_key';
  // A refresh token (HubSpot's OAuth) or a data center from the OAuth metadata call (Mailchimp's) mark an OAuth grant.
  if (credentials.refreshToken || credentials.dc) return 'oauth';
  return 'token';
}

function detailsOf(settings: ConnectionRecord['settings']): Record<string, string> {
  const details: Record<string, string> = {};
  for (const [name, value] of Object.entries(settings ?? {})) {
    if (SECRET_NAME.test(name)) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') details[name] = String(value);
  }
  return details;
}

/**
 * `failing` when the connection's most recent run failed or paused for a reason other than the user's
 * pause or the credit cap (stateReason is that run's reason); `token_expiring` when the credentials
 * expire within 7 days and cannot be refreshed; else `connected`.
 */
export function connectionView(record: ConnectionRecord, latestRun: RunRecord | undefined, now = Date.now()): ConnectionView {
  const credentials = record.credentials ?? {};
  const expires = Number(credentials.expiresAt);
  const expiresAt = Number.isFinite(expires) && expires > 0 ? expires : undefined;
  const view: ConnectionView = {
    id: record.id,
    platform: record.platform,
    label: record.label,
    createdAt: record.createdAt,
    auth: authOf(credentials),
    state: 'connected',
    details: detailsOf(record.settings),
  };
  if (expiresAt !== undefined) view.expiresAt = new Date(expiresAt).toISOString();
  const reason = latestRun?.statusReason ?? '';
  if (latestRun && (latestRun.status === 'failed' || (latestRun.status === 'paused' && !CHOSEN_PAUSES.some((chosen) => chosen.test(reason))))) {
    view.state = 'failing';
    view.stateReason = latestRun.statusReason ?? `the last run (${latestRun.id}) ${latestRun.status === 'failed' ? 'failed' : 'paused'}`;
  } else if (expiresAt !== undefined && !credentials.refreshToken && expiresAt - now <= EXPIRY_WARNING_MS) {
    view.state = 'token_expiring';
    view.stateReason = expiresAt <= now ? 'the access token has expired: connect again' : `the access token expires on ${new Date(expiresAt).toISOString().slice(0, 10)}: connect again before then`;
  }
  return view;
}

/** The most recent run of each connection, from a list of runs. */
export function latestRunByConnection(runs: RunRecord[]): Map<string, RunRecord> {
  const latest = new Map<string, RunRecord>();
  for (const run of runs) {
    if (!run.connectionId) continue;
    const seen = latest.get(run.connectionId);
    if (!seen || run.createdAt > seen.createdAt) latest.set(run.connectionId, run);
  }
  return latest;
}

export function platformInfo(setup: PlatformSetup): PlatformInfo {
  return { oauth: setup.oauth !== undefined, keyFields: setup.keyFields.map((f) => ({ ...f })), webhookUrl: setup.renewWebhookUrl !== undefined };
}
