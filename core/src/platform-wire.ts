/*
 * The shapes the dashboard reads over HTTP (GET /api/platforms, schema reports, engine keys and usage). Dependency-free on purpose:
 * the dashboard's tsconfig maps `@verify-hub/core` to core/src/wire.ts, which re-exports this file, so its `import type` of the
 * server's answers (webhooks-in/src/api-types.ts) never pulls Node code into the browser bundle.
 */

/** One input of a platform's "connect with a key" form (the dashboard renders it from this). */
export interface KeyField {
  /** The body property: `accessToken`, `apiKey`, `listId`. */
  name: string;
  /** What the form shows: "Private app token". */
  label: string;
  /** A secret is a password input and is never echoed back. */
  secret: boolean;
  help?: string;
  /**
   * Its options are listed by the hub (POST /api/platforms/<id>/choices/<name>) from the other fields,
   * once they are filled in; typing a value stays possible when listing fails.
   */
  choice?: boolean;
}

/** One option of a `choice` key field: an audience, with its name and size. */
export interface KeyFieldChoice {
  value: string;
  label: string;
  /** "1,204 members". */
  detail?: string;
}

/** The hub registering a connection's webhook with the platform: done, or why not and the URL to add by hand. */
export interface WebhookRegistration {
  /** The receiver's absolute URL (it holds the connection's secret). */
  url: string;
  registered: boolean;
  /** Why the platform refused, in plain words, when not registered. */
  problem?: string;
}

/** What the dashboard needs for a platform's card and forms. */
export interface PlatformCard {
  /** One line under the platform's name. */
  description: string;
  /** Example scopes the run form offers, with their words. */
  scopes?: { scope: string; label: string }[];
  /** The scope asked for when none is given. */
  defaultScope?: string;
  /** Where, in the platform, to paste a webhook address the hub hands out (connections with `webhookUrl`). */
  webhookHelp?: string;
}

/** What `ensureSchema` created, found, and could not do (POST /api/connections/:id/ensure-schema). */
export interface SchemaReport {
  created: string[];
  existing: string[];
  /** Anything the user must fix (a property of another type under our name, a limit reached). */
  problems: string[];
}

// engine-keys.ts imports nothing, so the dashboard may see its types through this file.
export type { EngineAccountUsage, EngineKeyView } from './engine-keys';

/**
 * What a webhook pasted in by hand must send besides its address, where the platform lets the admin
 * set them (Klaviyo's flow webhook action): a header holding the connection's secret, a body template.
 * Shown once with the address, as secret as it is.
 */
export interface WebhookRequest {
  headers?: Record<string, string>;
  body?: string;
}
