import { InputError, PlatformRejectedError, credentialsRefused, type Config, type ConnectionRecord, type PlatformSetup } from '@verify-hub/core';
import { salesforceEnvironment, type SalesforceEnvironment } from './environment';
import { LOGIN_HOSTS, authorizeUrl, connectionRecord, exchangeCode, jwtBearerToken, loginUrlOf, pkceVerifier } from './oauth';

/** The login host a connection signs in at: a `choice` of the key form, also asked before the OAuth sign-in. */
const ENVIRONMENT_FIELD = { name: 'environment', label: 'Org', secret: false, choice: true, help: 'production (login.salesforce.com) or sandbox (test.salesforce.com)' };

/**
 * A JWT bearer connection (server to server): the External Client App's certificate key signs an
 * assertion for `username`, who must be pre-authorised on the app. Refused: names `username`.
 */
export async function jwtConnection(env: SalesforceEnvironment, input: { username: string; environment?: string; label?: string }): Promise<ConnectionRecord> {
  const clientId = env.SALESFORCE_CLIENT_ID;
  const privateKey = env.SALESFORCE_JWT_PRIVATE_KEY;
  if (!clientId || !privateKey) throw new InputError('username', 'the JWT bearer flow is not configured here (SALESFORCE_CLIENT_ID and SALESFORCE_JWT_PRIVATE_KEY): sign in with Salesforce instead');
  const loginUrl = loginUrlOf(env, input.environment);
  try {
    const answer = await jwtBearerToken({ clientId, username: input.username, loginUrl, privateKey });
    return connectionRecord(answer, { loginUrl, apiVersion: env.SALESFORCE_API_VERSION, auth: 'jwt', username: input.username }, input.label);
  } catch (error) {
    if (credentialsRefused(error)) {
      throw new PlatformRejectedError('username', "username: Salesforce refused the JWT sign-in for this user: pre-authorise the user (a profile or permission set) on the External Client App, and check that its certificate matches SALESFORCE_JWT_PRIVATE_KEY");
    }
    throw error;
  }
}

/** The key form (JWT bearer, when configured) and the OAuth web-server sign-in with PKCE (when the app's keys are set). */
export function salesforceSetup(config: Config): PlatformSetup {
  const env = salesforceEnvironment.read(config);
  const { SALESFORCE_CLIENT_ID: clientId, SALESFORCE_CLIENT_SECRET: clientSecret } = env;
  // The JWT form is always shown: without SALESFORCE_CLIENT_ID and SALESFORCE_JWT_PRIVATE_KEY it answers what to set.
  const setup: PlatformSetup = {
    keyFields: [
      { name: 'username', label: 'Integration user (JWT bearer)', secret: false, help: 'The Salesforce username the hub signs in as, pre-authorised on the External Client App (needs SALESFORCE_CLIENT_ID and SALESFORCE_JWT_PRIVATE_KEY)' },
      ENVIRONMENT_FIELD,
    ],
    listChoices: async (field) => {
      if (field !== ENVIRONMENT_FIELD.name) throw new InputError('field', `Salesforce lists no choices for ${field}`);
      return LOGIN_HOSTS.map((host) => ({ value: host, label: host === 'production' ? 'Production' : 'Sandbox' }));
    },
    connectWithKey: async (input) => ({ record: await jwtConnection(env, { username: input.username ?? '', environment: input.environment, label: input.label }) }),
  };
  if (clientId && clientSecret) {
    setup.oauth = {
      authorizeUrl: (state, redirectUri, choices) => authorizeUrl({ loginUrl: loginUrlOf(env, choices?.environment), clientId, redirectUri, state, verifier: pkceVerifier(config.HUB_SECRET_KEY, state) }),
      exchange: async (code, redirectUri, choices, state) => {
        if (!state) throw new InputError('state', 'is needed for the PKCE verifier');
        const loginUrl = loginUrlOf(env, choices.environment);
        const answer = await exchangeCode({ loginUrl, clientId, clientSecret, redirectUri, code, verifier: pkceVerifier(config.HUB_SECRET_KEY, state) });
        return connectionRecord(answer, { loginUrl, apiVersion: env.SALESFORCE_API_VERSION, auth: 'oauth' });
      },
    };
  }
  return setup;
}
