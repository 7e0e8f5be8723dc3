import { z } from 'zod';
import { HubSpotApiError, HubSpotAuthError } from './errors';
import { buildHubSpotApis } from './client';
import type { VerifyActionDefinition } from './action-definition';

/**
 * The definitions operations of HubSpot's automation actions API v4, for legacy public apps (on the
 * current platform the action is a project component instead). The published operations declare
 * OAuth with `developers-read` (list) and `developers-write` (create, delete), so they are called with
 * a developer OAuth access token as a bearer, never `?hapikey=`. Plain requests, not the SDK: its
 * models drop members the published body requires (an output field's `schema`, `useChirp`).
 */
export const DEFINITIONS_PATH = '/automation/v4/actions';

const CreatedSchema = z.looseObject({ id: z.union([z.string(), z.number()]).transform(String) });
const PageSchema = z.looseObject({
  results: z.array(z.looseObject({ id: z.union([z.string(), z.number()]).transform(String), published: z.boolean().optional(), actionUrl: z.string().optional(), labels: z.record(z.string(), z.looseObject({ actionName: z.string().optional() })).optional() })),
  paging: z.looseObject({ next: z.looseObject({ after: z.string() }).optional() }).optional(),
});
export type ListedDefinition = z.infer<typeof PageSchema>['results'][number];

function parsed<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  const result = schema.safeParse(raw);
  if (!result.success) throw new HubSpotApiError(`HubSpot's answer to ${what} is not the published one (${result.error.issues[0]?.path.join('.') || 'body'})`, { retryable: false });
  return result.data;
}

export function actionDefinitionsApi(options: { basePath: string; developerToken: string }) {
  const apis = buildHubSpotApis({ accessToken: options.developerToken, basePath: options.basePath });
  // The token is the developer account's, not a portal's: its refusals say what it must be.
  const sendJson = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) =>
    apis.sendJson(method, path, body).catch((error: unknown) => {
      if (!(error instanceof HubSpotAuthError)) throw error;
      const needed = method === 'GET' ? 'developers-read' : 'developers-write';
      throw new HubSpotAuthError(
        error.status === 403
          ? `HubSpot refused HUBSPOT_DEVELOPER_TOKEN (403): the token lacks the ${needed} scope`
          : 'HubSpot refused HUBSPOT_DEVELOPER_TOKEN (401): it must be a current OAuth access token of the developer account, with developers-read and developers-write',
        { status: error.status },
      );
    });
  return {
    async create(appId: number, definition: VerifyActionDefinition): Promise<{ id: string }> {
      return parsed(CreatedSchema, await sendJson('POST', `${DEFINITIONS_PATH}/${appId}`, definition), 'creating an action');
    },
    /** Every definition of the app, following `paging.next.after`. */
    async list(appId: number): Promise<ListedDefinition[]> {
      const all: ListedDefinition[] = [];
      for (let after: string | undefined; ; ) {
        const page = parsed(PageSchema, await sendJson('GET', `${DEFINITIONS_PATH}/${appId}${after ? `?after=${encodeURIComponent(after)}` : ''}`), 'listing actions');
        all.push(...page.results);
        after = page.paging?.next?.after;
        if (!after) return all;
      }
    },
    async archive(appId: number, definitionId: string): Promise<void> {
      await sendJson('DELETE', `${DEFINITIONS_PATH}/${appId}/${encodeURIComponent(definitionId)}`);
    },
  };
}
