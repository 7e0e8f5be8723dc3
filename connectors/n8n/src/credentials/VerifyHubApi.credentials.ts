import type { IAuthenticateGeneric, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';
import { HOSTED_ENGINE_URL } from '@verify-hub/core';

/**
 * The API key and the engine's base URL. n8n injects the key as `X-API-Key` on every request made
 * with `httpRequestWithAuthentication`; it never goes into a URL.
 * (File and class names follow n8n's loader, which finds the class by the file's base name.)
 */
export class VerifyHubApi implements ICredentialType {
  name = 'verifyHubApi';
  displayName = 'Verify Hub API';
  icon = { light: 'file:verifyHub.svg', dark: 'file:verifyHub.dark.svg' } as const;
  documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-verify-hub#credentials';

  properties: INodeProperties[] = [
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
      description: 'Your verify-hub API key. Verifications are billed to this key.',
    },
    {
      displayName: 'Base URL',
      name: 'baseUrl',
      type: 'string',
      default: HOSTED_ENGINE_URL,
      required: true,
      description: 'The engine to use: the hosted service, or the address of a self-hosted engine',
    },
  ];

  authenticate: IAuthenticateGeneric = {
    type: 'generic',
    properties: {
      headers: { 'X-API-Key': '={{$credentials.apiKey}}' },
    },
  };

  /** "Test connection": one verification of a reserved example address (at most one credit). */
  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
      url: '/api/v1/verify',
      method: 'GET',
      qs: { email: 'test@example.com' },
    },
    rules: [
      { type: 'responseCode', properties: { value: 401, message: 'The API key was rejected: check it, or create a new one' } },
      { type: 'responseCode', properties: { value: 429, message: 'The key works, but its rate limit or monthly quota is reached right now' } },
    ],
  };
}
