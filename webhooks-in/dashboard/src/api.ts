import type {
  AccuracyAnswer,
  ConnectionSaved,
  ConnectionsAnswer,
  CronPreviewAnswer,
  EngineKeyView,
  EngineUsageView,
  FileEstimate,
  FilePreview,
  FileRunStarted,
  KeyFieldChoices,
  PlatformsAnswer,
  RunBreakdownView,
  RunDownloads,
  RunListQuery,
  RunView,
  SchedulePreset,
  ScheduleView,
  SchemaReport,
  SingleCheckAnswer,
  StartRunRequest,
  WebhookUrlRenewed,
} from './api-types';

/** A refusal from the hub (its `{error, code, field}` answer) or a request that never got an answer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The input the server named as wrong, when it named one. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The message to show for anything a request threw. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

let onUnauthorized: () => void = () => undefined;

/** Called when the session is gone (any 401): the app shows the sign-in page. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface RequestOptions {
  body?: unknown;
  signal?: AbortSignal;
  /** A 401 is this request's own answer (a wrong token at sign-in), not a lost session. */
  expectUnauthorized?: boolean;
}

/**
 * The dashboard's one way to the hub: JSON in and out, the session cookie (never a token) and, on
 * every unsafe request, the CSRF header the hub demands of cookie-authenticated calls.
 */
async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (UNSAFE_METHODS.has(method)) headers['X-VerifyHub-CSRF'] = '1';
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) {
    body = options.body; // the browser sets the multipart boundary itself
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body, credentials: 'same-origin', signal: options.signal });
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new ApiError(0, 'NETWORK', 'Cannot reach verify-hub. Check your connection and try again.');
  }
  const json = (response.headers.get('content-type') ?? '').includes('application/json') ? await response.json().catch(() => undefined) : undefined;
  if (!response.ok) {
    const answer = (json ?? {}) as { error?: unknown; code?: unknown; field?: unknown };
    const error = new ApiError(
      response.status,
      typeof answer.code === 'string' ? answer.code : `HTTP_${response.status}`,
      typeof answer.error === 'string' ? answer.error : `The hub answered ${response.status} ${response.statusText}`.trim(),
      typeof answer.field === 'string' ? answer.field : undefined,
    );
    if (response.status === 401 && !options.expectUnauthorized) onUnauthorized();
    throw error;
  }
  return json as T;
}

const path = (strings: TemplateStringsArray, ...values: string[]) =>
  strings.reduce((out, part, i) => out + part + (i < values.length ? encodeURIComponent(values[i]!) : ''), '');

// ---------------------------------------------------------------- session

export async function signIn(token: string): Promise<void> {
  await request('POST', '/api/session', { body: { token }, expectUnauthorized: true });
}

/** Whether the browser holds a live session. */
export async function hasSession(): Promise<boolean> {
  try {
    await request('GET', '/api/session', { expectUnauthorized: true });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return false;
    throw error;
  }
}

export async function signOut(): Promise<void> {
  await request('DELETE', '/api/session', { expectUnauthorized: true });
}

/** Ends every dashboard session (this one too) and every AI-assistant (MCP) sign-in of the hub. */
export async function signOutEverywhere(): Promise<void> {
  await request('POST', '/api/sessions/revoke', { body: { all: true } });
}

// ---------------------------------------------------------------- runs

export function listRuns(limit: number, filter: RunListQuery = {}, signal?: AbortSignal) {
  const query = new URLSearchParams({ limit: String(limit) });
  if (filter.source) query.set('source', filter.source);
  if (filter.status) query.set('status', filter.status);
  if (filter.q?.trim()) query.set('q', filter.q.trim());
  return request<{ runs: RunView[] }>('GET', `/api/runs?${query}`, { signal });
}
export const getRun = (id: string, signal?: AbortSignal) => request<RunView>('GET', path`/api/runs/${id}`, { signal });
export const getBreakdown = (id: string, signal?: AbortSignal) => request<RunBreakdownView>('GET', path`/api/runs/${id}/breakdown`, { signal });
/** A completed file run's downloads (409 before it completed). */
export const getDownloads = (id: string, signal?: AbortSignal) => request<RunDownloads>('GET', path`/api/runs/${id}/downloads`, { signal });
export const startRun = (body: StartRunRequest) => request<RunView>('POST', '/api/runs', { body });
export const runAction = (id: string, action: 'pause' | 'resume' | 'cancel' | 'recheck-unknowns') => request<RunView>('POST', path`/api/runs/${id}/${action}`);

/** Where the browser downloads a run's per-record report (a plain link: the session cookie goes along); a file run's files come with getDownloads. */
export const runLinks = (id: string) => ({
  report: path`/api/runs/${id}/report.csv`,
});

// ---------------------------------------------------------------- single-address check

/** Checks one address now (no run); the answer explains the verdict and each check in plain words. */
export const checkAddress = (email: string, signal?: AbortSignal) => request<SingleCheckAnswer>('POST', '/api/verify', { body: { email }, signal });

// ---------------------------------------------------------------- files

export function previewFile(file: File, signal?: AbortSignal): Promise<FilePreview> {
  const form = new FormData();
  form.append('file', file, file.name);
  return request<FilePreview>('POST', '/api/files/preview', { body: form, signal });
}

export const estimateFile = (uploadId: string, column: string, signal?: AbortSignal) =>
  request<FileEstimate>('GET', `${path`/api/files/${uploadId}/estimate`}?column=${encodeURIComponent(column)}`, { signal });

/** Drops a preview that will not be started (the hub would remove it after a day anyway). */
export const discardUpload = (uploadId: string) => request<void>('DELETE', path`/api/files/${uploadId}`);
export const startFile = (uploadId: string, body: { column?: string; removeRisky?: boolean; maxCredits?: number; dryRun?: boolean }) =>
  request<FileRunStarted>('POST', path`/api/files/${uploadId}/start`, { body });

// ---------------------------------------------------------------- connections

/** The registered platforms: labels, cards and how each connects here. */
export const listPlatforms = (signal?: AbortSignal) => request<PlatformsAnswer>('GET', '/api/platforms', { signal });
export const listConnections = (signal?: AbortSignal) => request<ConnectionsAnswer>('GET', '/api/connections', { signal });
export const saveConnection = (platform: string, body: Record<string, string>) => request<ConnectionSaved>('POST', path`/api/connections/${platform}`, { body });
/** Deletes a connection, the schedules that sync it, and cancels its runs under way. */
export const deleteConnection = (id: string) => request<{ deleted: string; removedSchedules: string[]; cancelledRuns: string[]; summary: string }>('DELETE', path`/api/connections/${id}`);
/** A new webhook address for the connection (its secret renewed: the old address stops working). */
export const renewWebhookUrl = (id: string) => request<WebhookUrlRenewed>('POST', path`/api/connections/${id}/webhook-url`);
/** A key field's options (Mailchimp's audiences) from the other fields, sent in the body: a key never goes in a URL. */
export const listKeyFieldChoices = (platform: string, field: string, body: Record<string, string>) =>
  request<KeyFieldChoices>('POST', path`/api/platforms/${platform}/choices/${field}`, { body });
export const ensureSchema = (id: string) => request<SchemaReport>('POST', path`/api/connections/${id}/ensure-schema`);

/** The OAuth start: a plain link, so the browser follows the hub's redirect to the platform. */
export function oauthStartUrl(platform: string, choices: Record<string, string> = {}): string {
  const base = path`/api/oauth/${platform}/start`;
  const query = new URLSearchParams(choices).toString();
  return query ? `${base}?${query}` : base;
}

// ---------------------------------------------------------------- accuracy

export function getAccuracy(days: number, connection?: string, signal?: AbortSignal): Promise<AccuracyAnswer> {
  const query = new URLSearchParams({ days: String(days) });
  if (connection) query.set('connection', connection);
  return request<AccuracyAnswer>('GET', `/api/accuracy?${query.toString()}`, { signal });
}
/** Reads the platforms' bounces now (the workers do every 15 minutes). */
export const readBounces = () => request<{ read: unknown[] }>('POST', '/api/accuracy/read', { body: {} });

// ---------------------------------------------------------------- schedules

export const listSchedules = (signal?: AbortSignal) => request<{ schedules: ScheduleView[] }>('GET', '/api/schedules', { signal });
/** A preset (every day, week or month at a time) or, the advanced option, a cron pattern. */
export type ScheduleWhen = { preset: SchedulePreset } | { cron: string };

export const createSchedule = (body: ScheduleWhen & { timezone?: string } & StartRunRequest) => request<ScheduleView>('POST', '/api/schedules', { body });
export const scheduleAction = (id: string, action: 'pause' | 'resume') => request<ScheduleView>('POST', path`/api/schedules/${id}/${action}`);
export const deleteSchedule = (id: string) => request<void>('DELETE', path`/api/schedules/${id}`);

export function previewSchedule(when: ScheduleWhen, timezone: string, signal?: AbortSignal): Promise<CronPreviewAnswer> {
  const query = new URLSearchParams('cron' in when ? { cron: when.cron } : Object.fromEntries(Object.entries(when.preset).map(([k, v]) => [k, String(v)])));
  if (timezone) query.set('timezone', timezone);
  return request<CronPreviewAnswer>('GET', `/api/schedules/preview?${query}`, { signal });
}

// ---------------------------------------------------------------- engine API keys

export const listEngineKeys = (signal?: AbortSignal) => request<{ keys: EngineKeyView[] }>('GET', '/api/engine/keys', { signal });
/** The answer holds the full key: the only time it exists outside the caller's hands. */
export const createEngineKey = (name: string) => request<{ key: string; record: EngineKeyView }>('POST', '/api/engine/keys', { body: { name } });
export const revokeEngineKey = (id: string) => request<EngineKeyView>('DELETE', path`/api/engine/keys/${id}`);
export const engineUsage = (signal?: AbortSignal) => request<EngineUsageView>('GET', '/api/engine/usage', { signal });
