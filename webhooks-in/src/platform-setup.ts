import type { PlatformRoute, PlatformSetup, PlatformWebhook } from '@verify-hub/core';
import type { PlatformEntry } from './api-types';

export type { PlatformEntry } from './api-types';

/*
 * How the hub connects and receives each platform. The types are core's platform module contract
 * (core/src/platform.ts); the host (`verify-hub serve`) builds them from the registered modules, so
 * the hub itself never imports a connector and names no platform.
 */
export { PlatformRejectedError, type KeyField, type PlatformSetup, type PlatformWebhook, type ReceiverRoute, type WebhookReceiver, type ActionReceiver } from '@verify-hub/core';

/** Connection setups by platform id; a platform without one answers 404 on its connect routes. */
export type PlatformSetups = Record<string, PlatformSetup | undefined>;

/** Everything the hub serves for the registered platforms, built by the host from the modules. */
export interface HubPlatforms {
  catalog: PlatformEntry[];
  platforms: PlatformSetups;
  webhooks: Record<string, PlatformWebhook>;
  /** Routes a platform adds, mounted at /platforms/<id><path> (they authenticate themselves). */
  platformRoutes: Record<string, PlatformRoute[]>;
}
