import type { IDataObject, IExecuteFunctions, IN8nHttpFullResponse } from 'n8n-workflow';

export const CREDENTIAL_TYPE = 'verifyHubApi';

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  return JSON.stringify(body);
}

function toHeaders(raw: IDataObject | undefined): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (value === undefined || value === null) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
  }
  return headers;
}

/**
 * A `fetch` for core's EngineClient that goes through n8n's own HTTP helper, so n8n's proxy settings
 * and request handling apply and the credential's `authenticate` injects `X-API-Key`. The client's own
 * key header is dropped: the credential is the one source of the key.
 */
export function n8nFetch(ctx: IExecuteFunctions, timeoutMs: number): typeof fetch {
  const send = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      if (name !== 'x-api-key') headers[name] = value;
    });
    const response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, {
      method: 'GET',
      url: input instanceof Request ? input.url : String(input),
      headers,
      json: true,
      returnFullResponse: true,
      ignoreHttpStatusErrors: true,
      timeout: timeoutMs,
      abortSignal: init?.signal ?? undefined,
    })) as IN8nHttpFullResponse;
    return new Response(bodyText(response.body), { status: response.statusCode, headers: toHeaders(response.headers) });
  };
  return send as typeof fetch;
}
