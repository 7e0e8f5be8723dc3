import type * as HubSpotSdk from '@hubspot/api-client';
import { hubspotErrorFromResponse, readRateLimitHeaders, type HeaderBag, type RateLimitHeaders } from './response-errors';
import { hubspotNetworkError } from './errors';
import { noteRequest, noteResponse } from './call-log';

/** The slice of an SDK request the middleware reads. */
interface SdkRequest {
  getHttpMethod(): string;
  getUrl(): string;
}

/** The slice of an SDK response the middleware reads. */
interface SdkResponse {
  httpStatusCode: number;
  headers: HeaderBag;
  body: { text(): Promise<string> };
}

export interface ClientOptions {
  accessToken?: string;
  basePath: string;
  /** The portal's zone: a DAILY 429 pauses until its midnight. */
  timeZone?: string;
  /** Sees the rate-limit headers of every answer (daily remaining, window remaining). */
  onRateLimitHeaders?: (headers: RateLimitHeaders) => void;
}

/**
 * The SDK API objects one connection uses, built from ONE `Client` for that connection.
 *
 * The SDK keeps its retry/limiter decorators on a process-wide singleton that every `new Client`
 * resets, and applies them when an API object is first created. So the client is built with no
 * decorators (`numberOfApiCallRetries` and `limiterOptions` unset: retries and limits are the
 * connector's own) and every API object is created right away, before any other client can change
 * the singleton. Error answers are turned into typed errors by a response middleware, which sees the
 * raw body (the SDK's own error model drops `policyName`).
 */
export function buildHubSpotApis(options: ClientOptions) {
  // Loaded with the first connection: a process that never calls HubSpot does not hold the SDK.
  const { Client } = require('@hubspot/api-client') as typeof HubSpotSdk;
  const client = new Client({
    accessToken: options.accessToken,
    basePath: options.basePath,
    middleware: [
      {
        pre: (ctx: unknown) => {
          const request = ctx as SdkRequest;
          noteRequest(request.getHttpMethod(), request.getUrl());
          return ctx;
        },
        post: async (ctx: unknown) => {
          const response = ctx as SdkResponse;
          noteResponse(response.httpStatusCode, response.headers ?? {});
          options.onRateLimitHeaders?.(readRateLimitHeaders(response.headers ?? {}));
          if (response.httpStatusCode >= 400) {
            const raw = await response.body.text().catch(() => '');
            throw hubspotErrorFromResponse(response.httpStatusCode, response.headers ?? {}, raw, { timeZone: options.timeZone });
          }
          return response;
        },
      },
    ],
  });
  const contacts = client.crm.contacts;
  const properties = client.crm.properties;
  const lists = client.crm.lists;
  const oauth = client.oauth;
  return {
    contactsBasic: contacts.basicApi,
    contactsBatch: contacts.batchApi,
    contactsSearch: contacts.searchApi,
    propertiesCore: properties.coreApi,
    propertyGroups: properties.groupsApi,
    listMemberships: lists.membershipsApi,
    lists: lists.listsApi,
    oauthTokens: oauth.tokensApi,
    /** Endpoints the SDK has no class for (account details, limits tracking). */
    getJson: (path: string): Promise<unknown> => sendJson('GET', path),
    /**
     * Requests whose published body the SDK's models cannot carry (its serializer drops members its
     * model lacks, as `typedOutputs` of a callback completion). Answers the parsed body, or undefined for 204.
     */
    sendJson,
  };

  async function sendJson(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
    noteRequest(method, path);
    const headers: Record<string, string> = { Authorization: `Bearer ${options.accessToken ?? ''}`, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${options.basePath}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }).catch((error: unknown) => {
      throw hubspotNetworkError(error);
    });
    const responseHeaders: HeaderBag = {};
    response.headers.forEach((value, key) => (responseHeaders[key.toLowerCase()] = value));
    noteResponse(response.status, responseHeaders);
    options.onRateLimitHeaders?.(readRateLimitHeaders(responseHeaders));
    const raw = await response.text();
    if (!response.ok) throw hubspotErrorFromResponse(response.status, responseHeaders, raw, { timeZone: options.timeZone });
    return raw === '' ? undefined : (JSON.parse(raw) as unknown);
  }
}

export type HubSpotApis = ReturnType<typeof buildHubSpotApis>;
