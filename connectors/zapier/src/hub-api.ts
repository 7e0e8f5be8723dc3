import type { Bundle, HttpResponse, ZObject } from 'zapier-platform-core';
import { hubBaseUrl } from './settings';

/**
 * The hub service's admin API, as far as the List Cleaning Finished trigger needs it (webhooks-in/):
 * bearer token (added by the middleware), JSON errors `{"error", "code"}`.
 *   POST   /api/hooks        {url, events?, secret?, label?} -> 201 {id, url, events, createdAt, secret}
 *   DELETE /api/hooks/:id    -> 204 (404 when already gone)
 *   GET    /api/runs?status=&limit= -> {runs: RunView[]}
 * The paths are constants here so a change in the hub is a one-line change.
 */
export const HUB_PATHS = {
  hooks: '/api/hooks',
  hook: (id: string) => `/api/hooks/${encodeURIComponent(id)}`,
  runs: '/api/runs',
};

export const FINISHED_EVENTS = ['run.completed', 'run.failed', 'run.cancelled'] as const;
export type FinishedEvent = (typeof FINISHED_EVENTS)[number];

export interface HubRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  params?: Record<string, string | number>;
  body?: unknown;
  /** Statuses that are fine besides 2xx (for example 404 on unsubscribe). */
  allow?: number[];
}

/** One admin API call; any other status becomes an error a Zap builder can act on. */
export async function hubRequest<T>(z: ZObject, bundle: Bundle, req: HubRequest): Promise<{ status: number; data: T }> {
  const base = hubBaseUrl(z, bundle);
  let response: HttpResponse;
  try {
    response = await z.request({
      url: `${base}${req.path}`,
      method: req.method,
      params: req.params,
      headers: { Accept: 'application/json', ...(req.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      timeout: 15_000,
    });
  } catch {
    throw new z.errors.Error(`Could not reach the verify-hub service at ${base}. Check the Hub Service URL of your connection.`, 'HUB_UNREACHABLE', 502);
  }
  const ok = (response.status >= 200 && response.status < 300) || (req.allow ?? []).includes(response.status);
  const data = parseJson(response.content) as T;
  if (ok) return { status: response.status, data };
  const said = (data && typeof data === 'object' ? (data as { error?: unknown }).error : undefined) as string | undefined;
  if (response.status === 401 || response.status === 403) {
    throw new z.errors.Error('The verify-hub service rejected the Hub Admin Token. Reconnect your verify-hub account with the current token (HUB_ADMIN_TOKEN of your service).', 'HUB_UNAUTHORIZED', response.status);
  }
  if (response.status === 503 && said) {
    throw new z.errors.Error(`The verify-hub service refused: ${said}`, 'HUB_UNAVAILABLE', 503);
  }
  throw new z.errors.Error(`The verify-hub service answered ${response.status}${said ? `: ${said}` : ''}`, 'HUB_ERROR', response.status);
}

function parseJson(content: unknown): unknown {
  if (typeof content !== 'string') return content;
  if (content.trim() === '') return undefined;
  try {
    return JSON.parse(content);
  } catch {
    return undefined;
  }
}
