import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createLogger } from '@verify-hub/core';
import { hubspotActionReceiver } from '@verify-hub/connector-hubspot';
import type { ActionCompletions } from '@verify-hub/sync-jobs';
import { errorHandler } from '@verify-hub/webhooks-in';
import { actionRoutes } from '../../webhooks-in/src/routes/actions';

/**
 * The hub's action endpoint as `verify-hub serve` mounts it (`/actions/hubspot`: the generic action
 * routes, HubSpot's receiver, the error handler), answered by the given completions. `connected`
 * says which connections the hub holds (default: every portal).
 */
export async function startActionHub(secret: string, completions: () => ActionCompletions, connected: (connectionId: string) => Promise<boolean> = async () => true): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  app.use('/actions', actionRoutes({ receivers: { hubspot: hubspotActionReceiver(secret, (call) => completions().answer(call), connected) } }));
  app.use(errorHandler(createLogger({ name: 'test', level: 'silent' })));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A "Verify email address" call's body as HubSpot sends it. */
export function actionCallBody(portal: string, email: string, callbackId: string): string {
  return JSON.stringify({
    callbackId,
    origin: { portalId: Number(portal), actionDefinitionId: 1234, actionDefinitionVersion: 1 },
    context: { source: 'WORKFLOWS', workflowId: 98765 },
    object: { objectId: 501, objectType: 'CONTACT' },
    inputFields: { email },
  });
}

/** POSTs a call signed as HubSpot signs it (v3: HMAC-SHA256 of method, URL, body and timestamp, base64). */
export async function signedActionCall(hubUrl: string, secret: string, body: string, timestamp = Date.now()) {
  const url = `${hubUrl}/actions/hubspot`;
  const signature = createHmac('sha256', secret).update(`POST${url}${body}${timestamp}`, 'utf8').digest('base64');
  const res = await fetch(url, {
    method: 'POST', body,
    headers: { 'content-type': 'application/json', 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': String(timestamp) },
  });
  return { status: res.status, body: (await res.json()) as { outputFields?: Record<string, string>; error?: string } };
}
