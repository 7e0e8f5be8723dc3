import type { z } from 'zod';
import { platformEnvPrefix, type Config, type PlatformVariables } from './config';
import type { ConnectionRecord, ConnectionStore, ConnectorFactory } from './connection';
import type { Connector, ContactEvent, RawWebhookRequest } from './connector';
import { AuthError, InputError, QuotaError, RateLimitError, TransientError, VerifyHubError, type ErrorDetails, type RateLimitInfo } from './errors';
import type { Logger } from './logger';
import type { KeyField, KeyFieldChoice, PlatformCard, WebhookRegistration, WebhookRequest } from './platform-wire';
import type { Verification } from './verification';

/**
 * The platform module contract (docs/adding-a-platform.md): everything verify-hub knows about one
 * platform, exported by its connector folder as one `definePlatform({...})` value. The CLI, the hub
 * and the dashboard iterate the registered modules and name no platform themselves. A module imports
 * core only: requests and answers here are plain shapes that the hub adapts to Express, and CLI
 * commands are described, not built with a CLI library.
 */

/**
 * How a platform is connected (token, API key, OAuth). `connectWithKey` checks the key with the
 * platform and builds the connection record; the host stores it. A refused key throws
 * `PlatformRejectedError` naming the field (never echoing the key); bad input throws `InputError`.
 */
/** A webhook address to paste into the platform, with what its request must carry. */
export interface WebhookToPaste {
  record: ConnectionRecord;
  webhookUrl: string;
  webhookRequest?: WebhookRequest;
}

export interface PlatformSetup {
  keyFields: KeyField[];
  /**
   * `webhookUrl`, when the platform needs one pasted in (Mailchimp), may be a path on the hub
   * (`/webhooks/mailchimp/<id>/<secret>`): the hub makes it absolute with its public URL.
   */
  connectWithKey(input: Record<string, string>): Promise<{ record: ConnectionRecord; webhookUrl?: string; webhookRequest?: WebhookRequest }>;
  /**
   * Present when the platform needs a webhook address pasted in: a new secret for the connection, so
   * its address (and the request it must send) can be shown once again. The old secret stops working.
   */
  renewWebhookUrl?(record: ConnectionRecord): WebhookToPaste;
  /**
   * Present when the hub registers the connection's webhook with the platform itself, after a connect
   * (key, OAuth, CLI) and a renewed address (replacing the old registration): `hubUrl` is the hub's
   * public base URL. Undefined when there is nothing to register (no audience named). A refusal does
   * not throw: it answers `registered: false` with why, and the URL to add by hand. `record`, when
   * present, is the connection with what the platform hands back only once at registration (Mailchimp's
   * webhook signing secret) in its credentials: the host saves it, sealed like the other credentials.
   */
  registerWebhook?(record: ConnectionRecord, hubUrl: string): Promise<(WebhookRegistration & { record?: ConnectionRecord }) | undefined>;
  /**
   * The options of a `choice` key field, listed from the platform with the other fields (an API key).
   * A refused key throws `PlatformRejectedError` naming its field.
   */
  listChoices?(field: string, input: Record<string, string>): Promise<KeyFieldChoice[]>;
  /** Present when the platform's OAuth app is configured. Token refresh is the connector's (`ConnectorDeps.saveCredentials`). */
  oauth?: {
    /** `choices`: the key form's `choice` fields picked before signing in (a sandbox's login host). */
    authorizeUrl(state: string, redirectUri: string, choices?: Record<string, string>): string;
    /**
     * `choices`: the values of the key form's `choice` fields picked before signing in, by field name.
     * `state`: the sign-in's state, as given to `authorizeUrl` (PKCE: a code verifier derived from it
     * with a server secret needs no storage of its own between the two steps).
     */
    exchange(code: string, redirectUri: string, choices: Record<string, string>, state: string): Promise<ConnectionRecord>;
  };
}

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

/**
 * Whether a failure means the credentials were refused (a key, a token, a sign-in), by its kind: any
 * `AuthError` (a platform's or the engine's) or a connect form's `PlatformRejectedError`. The one place
 * hosts decide it, whatever status the platform answered.
 */
export function credentialsRefused(error: unknown): error is AuthError | PlatformRejectedError {
  return error instanceof AuthError || error instanceof PlatformRejectedError;
}

/** The URL segments of a receiver route (`/webhooks/mailchimp/:connection/:secret`). */
export interface ReceiverRoute {
  connection?: string;
  secret?: string;
}

/**
 * A platform's webhook receiver, mounted by the hub at `/webhooks/<id><path>` for each path (`''` is
 * `/webhooks/<id>`; `/:connection/:secret` carries a per-connection secret). `receive` checks and
 * parses one delivery (throwing core's WebhookRejectedError); `connectionIdFor` names the connection
 * each event belongs to. Its secret is the module's to find (configuration, or the stored connection).
 */
export interface WebhookReceiver {
  receive(request: RawWebhookRequest, route: ReceiverRoute, now: number): ContactEvent[] | Promise<ContactEvent[]>;
  connectionIdFor(event: ContactEvent, route: ReceiverRoute): string;
}

export interface PlatformWebhook {
  /** Paths under `/webhooks/<id>` and the methods they answer; default `[{ path: '', methods: ['POST'] }]`. */
  paths?: { path: '' | '/:connection/:secret'; methods: ('GET' | 'POST')[] }[];
  receiver: WebhookReceiver;
}

/** A platform's workflow action calling the hub (POST /actions/<id>): answers in the platform's own JSON. */
export interface ActionReceiver {
  answer(request: RawWebhookRequest, now: number): Promise<unknown>;
}

/** A workflow-action call the hub answers at once from the cache or completes later through the platform's callback. */
export interface ActionCall {
  platform: string;
  connectionId: string;
  callbackId: string;
  email: string;
  /** Epoch ms after which the platform no longer waits. */
  deadline: number;
}
export type AnswerActionCall = (call: ActionCall) => Promise<Verification | undefined>;

export interface PlatformWorkflowAction {
  /** The receiver of POST /actions/<id>; undefined when its secret is not configured (the route answers 404). */
  receiver(context: PlatformContext, answer: AnswerActionCall): ActionReceiver | undefined;
  /** Completes a blocked call with its result through the platform's callback (throws the platform's typed errors). */
  complete(connector: Connector, callbackId: string, result: Verification): Promise<void>;
}

/** A request to a route a platform adds to the hub, as plain data (the hub adapts Express to it). */
export interface PlatformRequest extends RawWebhookRequest {
  /** The route's `:name` segments. */
  params: Record<string, string>;
  query: Record<string, string>;
}
export interface PlatformResponse {
  status: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless a string or Buffer. */
  body?: unknown;
}

/**
 * A route a platform adds to the hub (a signed CRM card endpoint), mounted at `/platforms/<id><path>`.
 * It authenticates itself (a platform signature): the hub's admin token is never asked. Throwing a
 * VerifyHubError answers with the hub's error shape (WebhookRejectedError: 401, InputError: 400).
 */
export interface PlatformRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Express-style, starting with '/': `/card`, `/accounts/:account`. */
  path: string;
  handle(request: PlatformRequest): Promise<PlatformResponse>;
}

/**
 * A reader or poller `serve` (with workers) and `worker` start and stop with the process (a webhooks
 * journal reader). Several processes may run it at once: a task that must run once takes a lease.
 */
export interface BackgroundTask {
  name: string;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

/** One entry of a platform's event journal (HubSpot's webhooks journal). */
export interface EventJournalEntry {
  offset: string;
  events: ContactEvent[];
  /** The entry says the app was uninstalled from the account. */
  uninstalled: boolean;
}

/** A pull-based event source read an entry at a time; `after` throws an error with code `JOURNAL_OFFSET_EXPIRED` past its retention. */
export interface EventJournal {
  earliest(): Promise<EventJournalEntry | undefined>;
  after(offset: string): Promise<EventJournalEntry | undefined>;
}

/**
 * What a process running the pipeline (`serve`, `worker`) offers a module's routes and tasks, so that
 * a platform's card or journal reader is written in its own folder without knowing BullMQ or Redis.
 */
export interface PlatformHost {
  /** The stored final verdict of an address (every run, event and action stores one), if any. */
  storedVerdict(email: string): Promise<Verification | undefined>;
  /** A fresh check through the workers' rate-limited engine; a final result is stored for the next look. */
  verifyNow(email: string): Promise<Verification>;
  /**
   * A durable reader of a connection's event journal into the receivers' event path: offset and a
   * lease kept per connection, so one process at a time reads it and an outage is caught up.
   */
  journalReader(options: {
    connectionId: string;
    journal: EventJournal;
    onUninstalled(): Promise<unknown>;
    /** Wait between reads once caught up (the host's default, 30 s, unless given): a poller's own interval. */
    idleMs?: number;
  }): { start(): void; close(): Promise<void> };
  /** A connection whose app was uninstalled: disconnected as `verify-hub disconnect` does, nothing asked of the platform. */
  disconnectUninstalled(connectionId: string): Promise<unknown>;
  /**
   * Starts a sync run of a stored connection, as `verify-hub sync` does: a platform's poller where the
   * platform has no change events (a Salesforce edition without Change Data Capture). Resolves to its id.
   */
  startRun?(request: { platform: string; connectionId: string; scope: string }): Promise<{ id: string }>;
}

/** What a module's host-facing parts are built from, by `serve`, `worker` and the CLI. */
export interface PlatformContext {
  config: Config;
  /** The stored connections (sealed with HUB_SECRET_KEY); absent without a secret key. */
  connections?: ConnectionStore;
  /** The connector of a stored connection, with the pipeline's shared limiter. */
  openConnector(connectionId: string): Promise<Connector>;
  logger: Logger;
  /** Present in processes that run the pipeline (`serve`, `worker`); absent in plain CLI commands. */
  host?: PlatformHost;
}

/** A CLI option, described without a CLI library: `--list <id>`, `--json`. */
export interface CliOption {
  flags: string;
  description: string;
  default?: string;
  required?: boolean;
}

/** A CLI command a platform adds under `verify-hub <id>`; the CLI builds it with its own library. */
export interface CliCommand {
  /** `setup`, `delete <definitionId>`: positional arguments in <> are passed to `run` in order. */
  name: string;
  description: string;
  options?: CliOption[];
  subcommands?: CliCommand[];
  /**
   * Omitted for a command that only groups subcommands. Options arrive camel-cased (`--app-id` as
   * `appId`). Resolves to the exit code when the work failed (1), else nothing; bad input throws
   * ConfigError/InputError (exit 2). `context()` opens the stored connections when HUB_SECRET_KEY is set.
   */
  run?(args: string[], options: Record<string, unknown>, context: () => Promise<PlatformContext>): Promise<number | void>;
}

export interface PlatformModule {
  /** Lower-case letters, digits and dashes: the connection's `platform`, the route segment, the CLI command. */
  readonly id: string;
  /** How people name it: "HubSpot". */
  readonly label: string;
  readonly connector: ConnectorFactory;
  /**
   * The connection's settings (`ConnectionRecord.settings`): the host validates them before the
   * connector is built (an error names `settings.<field>`) and hands the factory the parsed value.
   */
  readonly settings?: z.ZodType;
  /**
   * The most contacts the platform takes in one write call: the pipeline splits a page into batches
   * of this size, so `write` never gets more (default: the whole page).
   */
  readonly writeBatchSize?: number;
  /** False for sources that are not connections (uploaded files): no connection card, no key form. */
  readonly connectable?: boolean;
  readonly card?: PlatformCard;
  /** How to connect in this deployment; undefined when it cannot be (configuration missing). */
  setup?(context: PlatformContext): PlatformSetup | undefined;
  /** The webhook receiver; undefined when its secret is not configured (the route answers 404). */
  webhook?(context: PlatformContext): PlatformWebhook | undefined;
  readonly workflowAction?: PlatformWorkflowAction;
  routes?(context: PlatformContext): PlatformRoute[];
  /** Started by `serve` (with workers) and `worker`. */
  tasks?(context: PlatformContext): BackgroundTask[];
  readonly commands?: CliCommand[];
  /** Words for a paused run whose credentials were refused: "reconnect HubSpot (`verify-hub hubspot connect` ...)". */
  readonly reconnectAdvice?: string;
  /**
   * The environment variables it reads, all named `<ID>_...` (`platformEnvironment`): validated with
   * core's by `loadConfig` when the module is registered, secrets kept out of messages; read with `.read(config)`.
   */
  readonly environment?: PlatformVariables;
}

const PLATFORM_ID = /^[a-z][a-z0-9-]{0,39}$/;

const defined = new WeakSet<object>();

/** Whether `value` is a module made by `definePlatform` (how the CLI finds the one a platform package exports). */
export function isPlatformModule(value: unknown): value is PlatformModule {
  return typeof value === 'object' && value !== null && defined.has(value);
}

/** Checks a module's shape once, where it is defined, so a wrong id fails at start, not on a request. */
export function definePlatform<M extends PlatformModule>(module: M): M {
  if (!PLATFORM_ID.test(module.id)) throw new InputError('id', 'must be lower-case letters, digits and dashes, starting with a letter (at most 40)');
  if (!module.label?.trim()) throw new InputError('label', 'must name the platform');
  if (typeof module.connector !== 'function') throw new InputError('connector', 'must be a connector factory');
  const prefix = platformEnvPrefix(module.id);
  if (module.writeBatchSize !== undefined && !(Number.isInteger(module.writeBatchSize) && module.writeBatchSize > 0)) throw new InputError('writeBatchSize', 'must be a whole number above 0');
  for (const name of Object.keys(module.environment?.variables ?? {})) {
    if (!name.startsWith(prefix)) throw new InputError('environment', `${name} must start with ${prefix}`);
  }
  const frozen = Object.freeze(module);
  defined.add(frozen);
  return frozen;
}

/**
 * The failure kinds the pipeline acts on, for a platform's errors: an auth failure pauses the run until
 * reconnected (and a connect form answers "refused"), a rate limit waits, a quota pauses until its
 * reset, a transient failure (5xx, dropped connection) is tried once more. A platform's errors extend these
 * (by kind, with the platform as `source`), or its runs never pause: this is the one place they come from.
 */
export function platformErrorKinds(source: string) {
  return {
    AuthError: class extends AuthError {
      constructor(message: string, details: ErrorDetails = {}) {
        super(message, source, details);
      }
    },
    RateLimitError: class extends RateLimitError {
      constructor(message: string, info: RateLimitInfo, details: ErrorDetails = {}) {
        super(message, source, info, details);
      }
    },
    QuotaError: class extends QuotaError {
      constructor(message: string, info: RateLimitInfo, details: ErrorDetails = {}) {
        super(message, source, info, details);
      }
    },
    TransientError: class extends TransientError {
      constructor(message: string, details: ErrorDetails = {}) {
        super(message, source, details);
      }
    },
  };
}
