import { VerifyHubError, type ConnectionRecord } from '@verify-hub/core';

/** One input of a platform's "connect with a key" form (the dashboard renders it from this). */
export interface KeyField {
  /** The body property: `accessToken`, `apiKey`, `listId`. */
  name: string;
  /** What the form shows: "Private app token". */
  label: string;
  /** A secret is a password input and is never echoed back. */
  secret: boolean;
  help?: string;
}

/**
 * How the hub connects one platform, injected by the host (`verify-hub serve` builds it from the
 * connector): the hub itself never imports a connector. `connectWithKey` checks the key with the
 * platform and builds the connection record; the hub stores it. A refused key throws
 * `PlatformRejectedError` naming the field (never echoing the key); bad input throws core's InputError.
 */
export interface PlatformSetup {
  keyFields: KeyField[];
  /**
   * `webhookUrl`, when the platform needs one pasted in (Mailchimp), may be a path on the hub
   * (`/webhooks/mailchimp/<id>/<secret>`): the hub makes it absolute with its public URL.
   */
  connectWithKey(input: Record<string, string>): Promise<{ record: ConnectionRecord; webhookUrl?: string }>;
  /**
   * Present when the platform needs a webhook address pasted in (Mailchimp): a new secret for the
   * connection, so its address can be shown once again (an OAuth sign-in never shows one). The old
   * address stops working. Answers the record to store and the address (a path, as above).
   */
  renewWebhookUrl?(record: ConnectionRecord): { record: ConnectionRecord; webhookUrl: string };
  /** Present when the platform's OAuth app is configured. */
  oauth?: {
    authorizeUrl(state: string, redirectUri: string): string;
    exchange(code: string, redirectUri: string, extra: { listId?: string }): Promise<ConnectionRecord>;
  };
}

export type PlatformSetups = { hubspot?: PlatformSetup; mailchimp?: PlatformSetup };

/** The platform refused the given key or audience: the hub answers 400 PLATFORM_REJECTED naming `field`. */
export class PlatformRejectedError extends VerifyHubError {
  override readonly code: string = 'PLATFORM_REJECTED';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message, { status: 400 });
  }
}
