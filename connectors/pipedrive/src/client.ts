import type { AxiosError, AxiosInstance } from 'axios';
import { VerifyHubError } from '@verify-hub/core';
import type { OAuth2Configuration, PersonFieldsApi, PersonsApi } from 'pipedrive/v2';
import type { UsersApi, WebhooksApi } from 'pipedrive/v1';
import { PipedriveErrors, RECONNECT_WORDS, pipedriveFailure } from './errors';
import { RateWindow } from './rate-window';
import { pipedriveV1, pipedriveV2 } from './sdk';

/** How a connection signs its calls: an API token (`x-api-token`) or a Marketplace app's OAuth tokens. */
export type PipedriveAuth =
  | { kind: 'token'; apiToken: string }
  | { kind: 'oauth'; oauth: OAuth2Configuration };

/** The SDK's API classes a connection uses, sharing one rate window, each answering plain data. */
export interface PipedriveClient {
  persons: PersonsApi;
  personFields: PersonFieldsApi;
  users: UsersApi;
  webhooks: WebhooksApi;
  window: RateWindow;
}

/**
 * The token of an OAuth connection, refreshed by the SDK when it has expired. A refused refresh token
 * (revoked, or the app uninstalled) is an AuthError, so the run pauses with words saying to reconnect.
 */
function accessTokenOf(oauth: OAuth2Configuration): () => Promise<string> {
  return async () => {
    try {
      return await oauth.getAccessToken();
    } catch (error) {
      if ((error as AxiosError).isAxiosError && !(error as AxiosError).response) throw new PipedriveErrors.TransientError('Pipedrive\'s OAuth server could not be reached to refresh the token');
      throw new PipedriveErrors.AuthError(`Pipedrive refused to refresh the OAuth token (revoked, or the app was uninstalled): ${RECONNECT_WORDS}`);
    }
  };
}

/**
 * The SDK answers `response.data` and, on failure, rejects with the body alone (status and headers
 * lost). Its interceptor is replaced, on each API object's own axios instance, by one that reads the
 * rate-limit headers of every answer and turns a failure into core's kinds (`pipedriveFailure`).
 */
function observed<T extends object>(api: T, window: RateWindow, what: string): T {
  const axios = (api as unknown as { axios: AxiosInstance }).axios;
  axios.interceptors.response.clear();
  axios.interceptors.response.use(
    (response) => {
      window.observe(response.headers);
      return response.data as never;
    },
    (error: AxiosError) => {
      const path = error.config?.url ? new URL(error.config.url, 'http://x').pathname.replace(/\/\d+(?=\/|$)/g, '/:id') : what;
      return Promise.reject(pipedriveFailure(error, `${error.config?.method?.toUpperCase() ?? ''} ${path}`.trim(), window));
    },
  );
  return api;
}

/** The SDK's clients for one connection: v2 for persons and person fields, v1 for users/me and webhooks (no v2 yet). */
export function pipedriveClient(apiDomain: string, auth: PipedriveAuth, window = new RateWindow()): PipedriveClient {
  const base = apiDomain.replace(/\/+$/, '');
  if (!/^https?:\/\//.test(base)) throw new VerifyHubError('apiDomain: must be an http(s) address');
  const credentials = auth.kind === 'token' ? { apiKey: auth.apiToken } : { accessToken: accessTokenOf(auth.oauth) };
  const sdk2 = pipedriveV2();
  const sdk1 = pipedriveV1();
  const v2 = new sdk2.Configuration({ ...credentials, basePath: `${base}/api/v2` });
  const v1 = new sdk1.Configuration({ ...credentials, basePath: `${base}/api/v1` });
  return {
    persons: observed(new sdk2.PersonsApi(v2), window, 'persons'),
    personFields: observed(new sdk2.PersonFieldsApi(v2), window, 'personFields'),
    users: observed(new sdk1.UsersApi(v1), window, 'users'),
    webhooks: observed(new sdk1.WebhooksApi(v1), window, 'webhooks'),
    window,
  };
}
