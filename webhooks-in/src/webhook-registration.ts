import type { ConnectionRecord, ConnectionStore, Logger, PlatformSetup } from '@verify-hub/core';
import type { WebhookRegistrationView } from './api-types';

/**
 * Registers a just-saved connection's webhook through its platform module, when the module does that.
 * The connection is saved whatever happens here: a failure is answered with why (the URL then goes to
 * the user to add by hand), never as the request's error. What the platform hands back once (a
 * webhook signing secret) comes back in `registration.record` and is saved with the connection.
 */
export async function registerConnectionWebhook(
  setup: PlatformSetup | undefined,
  record: ConnectionRecord,
  hubUrl: string,
  logger: Logger,
  connections: Pick<ConnectionStore, 'save'>,
): Promise<{ url?: string; webhook?: WebhookRegistrationView }> {
  if (!setup?.registerWebhook) return {};
  try {
    const registration = await setup.registerWebhook(record, hubUrl);
    if (!registration) return {};
    if (registration.record) await connections.save(registration.record);
    return { url: registration.url, webhook: registration.problem ? { registered: registration.registered, problem: registration.problem } : { registered: registration.registered } };
  } catch (error) {
    logger.error({ err: error, connectionId: record.id }, 'webhook registration failed');
    return { webhook: { registered: false, problem: 'the hub could not register the webhook (an unexpected error, logged)' } };
  }
}
