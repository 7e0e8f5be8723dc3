import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './errors';
import { parseRedisUrl } from './redis-url';

/** A URL variable with one of `protocols` (`['http:', 'https:']`); for platforms' variables too. */
export const configUrl = (protocols: string[]) =>
  z.string().refine((v) => {
    try {
      return protocols.includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, `must be a URL (${protocols.join(' or ')})`);

const isCurrencyCode = (code: string) => /^[A-Z]{3}$/.test(code) && Intl.supportedValuesOf('currency').includes(code);

const port = z.coerce.number().int().min(0).max(65535);
/** A secret variable: present and not empty; list its name in the secrets too. */
export const configSecret = z.string().min(1);

/**
 * Every configuration name the hub itself reads (DESIGN.md §8). A package that needs a new name adds it
 * here; a platform declares its own in its module (`PlatformModule.environment`), and `loadConfig`
 * validates both, so there is one place each is validated, documented and kept out of messages.
 */
export const ConfigSchema = z.strictObject({
  ENGINE_URL: configUrl(['http:', 'https:']).optional(),
  ENGINE_API_KEY: configSecret.optional(),
  ENGINE_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  ENGINE_CONCURRENCY: z.coerce.number().int().min(1).max(500).optional(),
  REDIS_URL: z
    .string()
    .superRefine((v, ctx) => {
      try {
        parseRedisUrl(v);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    })
    .default('redis://127.0.0.1:6379'),
  HUB_ADMIN_TOKEN: configSecret.optional(),
  HUB_SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  PORT: port.default(8080),
  ENGINE_PORT: port.default(8081),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // The hub service (webhooks-in, `verify-hub serve`).
  HUB_HOST: z.string().min(1).default('0.0.0.0'),
  HUB_PUBLIC_URL: configUrl(['http:', 'https:']).optional(),
  HUB_TRUST_PROXY: z.string().min(1).optional(),
  /** Internal hosts completion hooks may reach (comma-separated names, addresses, CIDR ranges); checked when `serve` starts. */
  HUB_OUTBOUND_ALLOW: z.string().min(1).optional(),
  HUB_UPLOAD_DIR: z.string().min(1).optional(),
  HUB_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /**
   * Where `serve` (with workers) forwards accepted webhook events to the pipeline: on its event loop
   * (`loop`, the default: measured better on 2 cores, where a thread has no core of its own and competes
   * with the acks) or in a worker thread (`thread`: for hosts with spare cores; it catches a backlog up faster).
   */
  HUB_WEBHOOK_FORWARDER: z.enum(['loop', 'thread']).default('loop'),
  // The local engine (engine/README.md): `verify-hub engine` and the in-process default of `clean`.
  ENGINE_HOST: z.string().min(1).default('127.0.0.1'),
  ENGINE_DNS_SERVERS: z.string().regex(/^\s*[0-9a-fA-F:.[\]]+(\s*,\s*[0-9a-fA-F:.[\]]+)*\s*$/, 'must be a comma-separated list of ip or ip:port').optional(),
  ENGINE_SMTP: z.enum(['on', 'off']).default('on'),
  ENGINE_SMTP_PORT: port.default(25),
  ENGINE_MAIL_FROM: z.email().optional(),
  ENGINE_HELO_NAME: z.string().regex(/^[A-Za-z0-9.-]+$/, 'must be a host name').optional(),
  // Lets MX hosts on loopback/private addresses be probed: for a lab with its own DNS and SMTP peers only.
  ENGINE_ALLOW_PRIVATE_MX: z.enum(['on', 'off']).default('off'),
  ENGINE_ACCEPT_ALL_VERDICT: z.enum(['risky', 'unknown']).default('risky'),
  // The operator's own domain lists: comma-separated, or file:/path with one domain a line.
  ENGINE_ALLOW_DOMAINS: z.string().min(1).optional(),
  ENGINE_DENY_DOMAINS: z.string().min(1).optional(),
  // socks5://[user:password@]host:port: the local engine's SMTP connections go through it (cloud hosts block port 25).
  ENGINE_SMTP_PROXY: configUrl(['socks5:', 'socks5h:']).optional(),
  ENGINE_REDIS_PREFIX: z.string().min(1).default('vh:engine:'),
  // The sync pipeline (sync-jobs/README.md): `verify-hub worker`, `sync`, `runs`.
  VERIFY_HUB_REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]+$/, 'must be letters, digits, colon, dash or underscore').default('vh:sync'),
  VERIFY_HUB_ENGINE_RATE: z.coerce.number().int().min(1).max(100_000).optional(),
  VERIFY_HUB_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(4),
  /** `verify-hub worker` serves /healthz and /readyz on this port (on HUB_HOST) when set; the image sets 8082. */
  VERIFY_HUB_WORKER_HEALTH_PORT: port.optional(),
  VERIFY_HUB_FRESHNESS_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  /** Days a run record, its per-record report and an uploaded file (with its outputs) are kept after their last change. */
  VERIFY_HUB_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /**
   * How long a webhook event waits for more deliveries about the same contact before it is verified
   * (they are coalesced into one check): 5000 ms unless set. Lower it where a new contact must be
   * verified within a second or two (a platform that delivers each contact once, like a Klaviyo flow webhook).
   */
  VERIFY_HUB_EVENT_COALESCE_MS: z.coerce.number().int().min(0).max(600_000).optional(),
  /**
   * How long a worker's hold on a run's job lasts unrenewed (default 30 s, BullMQ's) and how often dead
   * holders are looked for (default 30 s): a worker killed mid-run has its jobs taken back after about
   * both. Shorter hands them over sooner, at the cost of more Redis calls; a hold must outlast the
   * longest pause of a busy worker's event loop, so keep it at several seconds. Where set, they are also
   * a webhook forwarder's hold on an accepted delivery (10 s and 5 s otherwise).
   */
  VERIFY_HUB_JOB_LOCK_MS: z.coerce.number().int().min(2_000).max(600_000).optional(),
  VERIFY_HUB_STALLED_INTERVAL_MS: z.coerce.number().int().min(1_000).max(600_000).optional(),
  VERIFY_HUB_RECHECK_DELAYS: z.string().regex(/^\s*\d+(\.\d+)?[smhd](\s*,\s*\d+(\.\d+)?[smhd])*\s*$/, 'must be a comma-separated list like 30m,2h,8h,24h,5d').optional(),
  /** What 1,000 credits cost (for example 1.20): estimates and runs show money beside credits; unset, credits only. */
  VERIFY_HUB_PRICE_PER_1000: z
    .string()
    .regex(/^\s*\d{1,7}(\.\d{1,4})?\s*$/, 'must be the price of 1,000 credits as a plain number, like 1.20 (no currency sign)')
    .transform(Number)
    .optional(),
  /** The ISO 4217 currency of VERIFY_HUB_PRICE_PER_1000 (USD). */
  VERIFY_HUB_CURRENCY: z
    .string()
    .trim()
    .toUpperCase()
    .refine(isCurrencyCode, 'must be an ISO 4217 currency code, like USD, EUR or GBP')
    .default('USD'),
});
/**
 * The loaded configuration: core's names typed, and the registered platforms' own names, which each
 * module reads typed through its `PlatformEnvironment.read`.
 */
export type Config = z.infer<typeof ConfigSchema> & { readonly [platformName: string]: unknown };

/** Core's secret names; a platform's are in its `PlatformEnvironment.secrets` (see `secretConfigNames`). */
export const SECRET_NAMES: ReadonlySet<string> = new Set(['ENGINE_API_KEY', 'ENGINE_SMTP_PROXY', 'HUB_ADMIN_TOKEN', 'HUB_SECRET_KEY']);

/** Core's prefixes: an unknown variable under one of these, or a platform's, is a typo worth stopping for. */
const OWN_PREFIXES = ['ENGINE_', 'HUB_', 'VERIFY_HUB_'];

/**
 * The environment variables a platform module reads (`HUBSPOT_CLIENT_SECRET`), all under its prefix
 * (`platformEnvPrefix(id)`), and which of them are secrets. Made with `platformEnvironment`.
 */
export interface PlatformVariables {
  readonly variables: z.ZodRawShape;
  readonly secrets: readonly string[];
}

export interface PlatformEnvironment<Shape extends z.ZodRawShape> extends PlatformVariables {
  readonly variables: Shape;
  /** The platform's values, typed, from a loaded configuration (defaults applied even if it was loaded without the module). */
  read(config: Config): z.infer<z.ZodObject<Shape>>;
}

export function platformEnvironment<Shape extends z.ZodRawShape>(variables: Shape, secrets: readonly (keyof Shape & string)[] = []): PlatformEnvironment<Shape> {
  const schema = z.object(variables);
  return {
    variables,
    secrets,
    read(config) {
      const own = Object.fromEntries(Object.keys(variables).map((name) => [name, config[name]]));
      return parseNamed(schema, own) as z.infer<z.ZodObject<Shape>>;
    },
  };
}

/** `HUBSPOT_` for `hubspot`, `TOY_CRM_` for `toy-crm`: every variable of a platform starts with it. */
export const platformEnvPrefix = (platformId: string) => `${platformId.toUpperCase().replace(/-/g, '_')}_`;

/** A platform whose variables `loadConfig` validates with core's: its id and environment (a `PlatformModule`). */
export interface ConfiguredPlatform {
  readonly id: string;
  readonly environment?: PlatformVariables;
}

/** Every secret name, core's and the platforms': never logged or echoed. */
export function secretConfigNames(platforms: readonly ConfiguredPlatform[] = []): Set<string> {
  return new Set([...SECRET_NAMES, ...platforms.flatMap((p) => p.environment?.secrets ?? [])]);
}

/** Parses, turning the first problem into a ConfigError naming its variable. */
function parseNamed(schema: z.ZodType, input: Record<string, unknown>): unknown {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const name = String(issue.path[0] ?? 'config');
  // zod messages describe the rule, not the received value, so secrets stay out.
  throw new ConfigError(name, issue.message);
}

/**
 * Reads configuration from the environment, with an optional JSON config file underneath (the
 * environment wins): core's names and those of `platforms` (the registered modules). Unknown or
 * malformed values throw `ConfigError` naming the variable, never the value of a secret.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: { file?: string; ignoreUnknown?: string[]; platforms?: readonly ConfiguredPlatform[] } = {},
): Config {
  const platforms = options.platforms ?? [];
  const schema = ConfigSchema.extend(Object.assign({}, ...platforms.map((p) => p.environment?.variables ?? {})) as z.ZodRawShape);
  const prefixes = [...OWN_PREFIXES, ...platforms.map((p) => platformEnvPrefix(p.id))];
  const known = new Set(Object.keys(schema.shape));
  const ignored = new Set(options.ignoreUnknown ?? []);
  let fromFile: Record<string, unknown> = {};
  if (options.file) {
    try {
      fromFile = JSON.parse(readFileSync(options.file, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      throw new ConfigError(options.file, `cannot read config file (${(e as Error).message})`);
    }
    if (!fromFile || typeof fromFile !== 'object' || Array.isArray(fromFile)) throw new ConfigError(options.file, 'must hold a JSON object');
    for (const key of Object.keys(fromFile)) if (!known.has(key)) throw new ConfigError(key, `unknown config key in ${options.file}`);
  }
  const fromEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    if (known.has(key)) fromEnv[key] = value;
    else if (prefixes.some((p) => key.startsWith(p)) && !ignored.has(key)) {
      throw new ConfigError(key, `unknown configuration variable (known: ${[...known].join(', ')})`);
    }
  }
  return parseNamed(schema, { ...fromFile, ...fromEnv }) as Config;
}
