import type { KeyField, KeyFieldChoice, PlatformCard, WebhookRequest } from '@verify-hub/core';

/*
 * The admin API's connection and platform answers (and core's wire shapes it re-exports; the run answers are in
 * run-api-types.ts): the one definition, used by the routes and imported by the dashboard with `import type`
 * (esbuild erases it). It imports nothing but core's dependency-free wire types (core/src/wire.ts), so it
 * type-checks in the browser's tsconfig too.
 */

export type ConnectionAuth = 'oauth' | 'token' | 'api_key';
export type ConnectionState = 'connected' | 'token_expiring' | 'failing';

/** A stored connection as the dashboard shows it: what it is and how it is doing, never its credentials. */
export interface ConnectionView {
  id: string;
  platform: string;
  label: string;
  createdAt: string;
  auth: ConnectionAuth;
  state: ConnectionState;
  stateReason?: string;
  /** When the access token expires (ISO), for tokens that do. */
  expiresAt?: string;
  /** Non-secret settings: portalId, listId, timeZone, rateTier ... */
  details: Record<string, string>;
}

/** How a platform connects in this deployment. */
export interface PlatformInfo {
  oauth: boolean;
  keyFields: KeyField[];
  /** Whether the platform's connections have a webhook address the dashboard can hand out (again). */
  webhookUrl: boolean;
}

/** A registered platform as the hub lists it. */
export interface PlatformEntry {
  id: string;
  label: string;
  /** False for sources that are not connections (uploads). */
  connectable: boolean;
  card?: PlatformCard;
}

/** A registered platform as the dashboard renders its card and forms (GET /api/platforms). */
export interface PlatformView extends PlatformEntry {
  /** How it connects here (key form, OAuth); absent when it cannot be connected in this deployment. */
  connect?: PlatformInfo;
  /** Whether its webhook receiver is mounted (at /webhooks/<id>). */
  webhook: boolean;
}

/** GET /api/platforms */
export interface PlatformsAnswer {
  platforms: PlatformView[];
}

/** GET /api/connections: the platforms' key forms by id, for those that can be connected here. */
export interface ConnectionsAnswer {
  connections: ConnectionView[];
  platforms: Record<string, PlatformInfo>;
}

/** Whether the hub registered the connection's webhook with the platform itself, and if not, why. */
export interface WebhookRegistrationView {
  registered: boolean;
  problem?: string;
}

/** POST /api/connections/:platform */
export interface ConnectionSaved {
  connection: ConnectionView;
  /** A webhook address holding a secret (Mailchimp's): shown this once; to add by hand unless `webhook.registered`. */
  webhookUrl?: string;
  /** The headers and body that webhook must send, where the platform has the admin set them (Klaviyo's flow): shown this once too. */
  webhookRequest?: WebhookRequest;
  /** Present for platforms whose webhook the hub registers itself. */
  webhook?: WebhookRegistrationView;
}
/** POST /api/connections/:id/webhook-url: a new address (the old one stops working), registered again when the hub does that. */
export interface WebhookUrlRenewed {
  webhookUrl: string;
  webhookRequest?: WebhookRequest;
  webhook?: WebhookRegistrationView;
}

/** POST /api/platforms/:platform/choices/:field */
export interface KeyFieldChoices {
  choices: KeyFieldChoice[];
}
export type * from './run-api-types';
export type { EngineAccountUsage, EngineKeyView, KeyField, KeyFieldChoice, PlatformCard, SchemaReport, WebhookRequest } from '@verify-hub/core';
