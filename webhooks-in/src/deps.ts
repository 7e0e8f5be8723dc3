import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { RequestHandler } from 'express';
import type { ActionReceiver, ConnectionStore, CredentialThrottleLimits, Logger, PlatformRoute, PlatformWebhook, Pricing, SecretBox, Verifier } from '@verify-hub/core';
import type { AccuracyService, ConnectionOperations, RunService, ScheduleService } from '@verify-hub/sync-jobs';
import type { PlatformEntry, PlatformSetups } from './platform-setup';
import type { McpSignInOptions } from './mcp-oauth-provider';
import type { EngineKeysSetting } from './engine-keys';
import type { OutboundGuard } from './outbound-guard';

/**
 * What the hub service is built from. Everything is passed in, so tests hand it a fake RunService and
 * `verify-hub serve` hands it the real BullMQ pipeline.
 */

export interface HubAppDeps {
  runs: RunService;
  /** The hub's own Redis connection (readiness, completion-webhook registry and delivery queue). */
  redis: Redis;
  /** Bearer token of the admin API and queue UI. Without one the admin API answers 503 (never open). */
  adminToken?: string;
  /** Webhook receivers by platform id, mounted at /webhooks/<id>; a platform without one answers 404 there. */
  webhooks?: Record<string, PlatformWebhook>;
  /** Workflow-action receivers by platform name (POST /actions/:platform); others answer 404. */
  actions?: Record<string, ActionReceiver>;
  /** The sync pipeline's Prometheus registry, served at /metrics with the hub's HTTP metrics. */
  metricsRegistry?: Registry;
  /** BullMQ queues shown in the queue UI at /admin/queues. */
  queues?: Queue[];
  /** Where uploaded files are saved (one folder per upload). */
  uploadDir: string;
  /** Whether the workers of this deployment are running (readiness). Absent: not checked. */
  workersRunning?: () => boolean | Promise<boolean>;
  /** Seals completion-webhook secrets at rest (HUB_SECRET_KEY); without it they are stored as given. */
  secretBox?: SecretBox;
  /** Public base URL (`https://hub.example.com`) when behind a proxy: HubSpot signs the URL it called. */
  publicUrl?: string;
  /** Express `trust proxy` setting, for X-Forwarded-* behind a load balancer. */
  trustProxy?: boolean | number | string;
  logger?: Logger;
  /** Redis key prefix of the hub's own keys (tests use a unique one). */
  keyPrefix?: string;
  /** Webhook ingest queue: its name, whether this process forwards it, retries (tests shorten them). */
  ingest?: { queueName?: string; worker?: boolean; concurrency?: number; eventsAtOnce?: number; attempts?: number; backoffMs?: number };
  /**
   * Where outbound requests a user's input aims (completion hooks) may go: the public internet, plus
   * what HUB_OUTBOUND_ALLOW lists. Default: the public internet only.
   */
  outbound?: OutboundGuard;
  /** Completion-webhook delivery: attempts and backoff base (tests shorten it). */
  delivery?: { enabled?: boolean; attempts?: number; backoffMs?: number; timeoutMs?: number; queueName?: string };
  /** Where a file upload's settings (email column, rows to remove) are stored for the file connector. */
  connections?: ConnectionStore;
  /**
   * Sign-in for the MCP endpoint mounted at /mcp (OAuth 2.1 with the hub as authorization server; see
   * mcp-sign-in.ts): a signed-in assistant's calls use `engineKey`. Needs `adminToken` and `publicUrl`;
   * without it (or them) /mcp takes API keys only.
   */
  mcpSignIn?: McpSignInOptions & { path?: string };
  /** Extra handlers mounted before the 404 (the MCP endpoint at /mcp, the dashboard at /). */
  mounts?: { path: string; handler: RequestHandler; auth?: boolean }[];
  /** Upload limits (defaults: 50,000 rows, 64 MB). */
  /** Upload limits, and how long a previewed upload never started is kept (default 24 hours). */
  /** Upload limits; `retentionMs` keeps a cleaned upload and its outputs that long (VERIFY_HUB_RETENTION_DAYS). */
  upload?: { maxRows?: number; maxBytes?: number; abandonedAfterMs?: number; retentionMs?: number };
  /** The accuracy report from the platforms' bounces (GET /api/accuracy); without it that route answers 503. */
  accuracy?: AccuracyService;
  /** Recurring syncs (the dashboard's schedules); without it /api/schedules answers 503. */
  schedules?: ScheduleService;
  /** The price of 1,000 credits (VERIFY_HUB_PRICE_PER_1000, VERIFY_HUB_CURRENCY): estimates and runs show money beside credits. */
  pricing?: Pricing;
  /** Credit estimates and ensureSchema through the connectors; without it those routes answer 503. */
  operations?: ConnectionOperations;
  /** How each platform is connected (key form, OAuth), built by the host from the platform modules. */
  platforms?: PlatformSetups;
  /** The registered platforms, as GET /api/platforms lists them; absent: the ids of `platforms`. */
  catalog?: PlatformEntry[];
  /** Routes the platforms add, by platform id, mounted at /platforms/<id><path> (they authenticate themselves). */
  platformRoutes?: Record<string, PlatformRoute[]>;
  /**
   * The engine for single-address checks (`POST /api/verify`, the dashboard's box): `verify-hub serve`
   * passes the engine it gives the workers. Without one that route answers 503.
   */
  verifier?: Verifier;
  /** Single-address checks allowed per client address per minute (default 30). */
  singleCheck?: { perMinute?: number };
  /**
   * Failed credential checks (admin token as bearer, Basic or sign-in; MCP tokens) allowed before a
   * lock-out: core's CREDENTIAL_THROTTLE_DEFAULTS (10 a minute per address, 100 a minute per credential,
   * 15 minutes of lock-out) unless given.
   */
  throttle?: Partial<CredentialThrottleLimits>;
  /**
   * The engine's API keys and usage (the dashboard's "API keys" page): an admin over the engine's key
   * store, or where keys are managed instead (a remote engine). Absent: `/api/engine/*` answers 503.
   */
  engineKeys?: EngineKeysSetting;
}
