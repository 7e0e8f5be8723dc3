import type { z } from 'zod';
import type { Config, PlatformEnvironment } from './config';
import type { ConnectionRecord, ConnectorDeps, ConnectorFactory } from './connection';
import type { Connector, Scope } from './connector';
import { InputError } from './errors';
import { definePlatform, type PlatformModule } from './platform';

/**
 * The one registry of platforms: a module registered here is listed, configured and connected from
 * here, and its connector is built from here; unregistering removes all of it. The host's rules for
 * every connector live here too: the connection's `settings` are validated against the module's
 * schema (an error names `settings.<field>`), and the factory is given them and the module's
 * environment, read from the process's configuration, so no connector reads `process.env`.
 */
export class PlatformRegistry {
  private readonly modules = new Map<string, PlatformModule>();

  /** Registers a module (again under its id: replaces it). `register(id, factory)` is a connector alone (tests, embedding). */
  register(module: PlatformModule): this;
  register(id: string, factory: ConnectorFactory, facts?: Pick<PlatformModule, 'reconnectAdvice' | 'writeBatchSize'>): this;
  register(moduleOrId: PlatformModule | string, factory?: ConnectorFactory, facts: Pick<PlatformModule, 'reconnectAdvice' | 'writeBatchSize'> = {}): this {
    const module = typeof moduleOrId === 'string' ? definePlatform({ id: moduleOrId, label: moduleOrId, connector: factory!, ...facts }) : moduleOrId;
    this.modules.set(module.id, module);
    return this;
  }

  unregister(id: string): boolean {
    return this.modules.delete(id);
  }

  get(id: string): PlatformModule | undefined {
    return this.modules.get(id);
  }

  has(id: string): boolean {
    return this.modules.has(id);
  }

  /** The modules, in the order they were registered. */
  list(): PlatformModule[] {
    return [...this.modules.values()];
  }

  /** The ids, sorted (for messages). */
  platforms(): string[] {
    return [...this.modules.keys()].sort();
  }

  /** How a user reconnects a platform whose credentials were refused (its module's words), if it said. */
  reconnectAdvice(platform: string): string | undefined {
    return this.modules.get(platform)?.reconnectAdvice;
  }

  /** The most records the platform takes in one write call (`PlatformModule.writeBatchSize`), if it said. */
  writeBatchSize(platform: string): number | undefined {
    return this.modules.get(platform)?.writeBatchSize;
  }

  /** The platform's own judgement of a scope, without a connection (nothing when it has none). */
  checkScope(platform: string, scope: Scope): void {
    this.modules.get(platform)?.connector.checkScope?.(scope);
  }

  /** The connector of a connection: its settings validated, its module's environment read from `config` (defaults without one). */
  create(connection: ConnectionRecord, deps: ConnectorDeps, config: Config = {} as Config): Connector {
    const module = this.modules.get(connection.platform);
    if (!module) throw new InputError('platform', `no connector registered for "${connection.platform}" (known: ${this.platforms().join(', ') || 'none'})`);
    const settings = module.settings ? validSettings(module.settings, connection.settings) : connection.settings;
    const environment = (module.environment as PlatformEnvironment<z.ZodRawShape> | undefined)?.read?.(config);
    return module.connector(connection, { ...deps, settings, ...(environment ? { environment } : {}) });
  }
}

/**
 * A connection's settings through its module's schema: the first problem names its field
 * (`settings.baseUrl`), never a value. `root` names another part (`credentials`), or none (`''`).
 */
export function validSettings<S extends z.ZodType>(schema: S, settings: unknown, root = 'settings'): z.infer<S> {
  const parsed = schema.safeParse(settings ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new InputError([root, ...issue.path.map(String)].filter(Boolean).join('.') || 'options', issue.message);
}

/**
 * A connector factory typed by the module's settings schema and environment: `build` gets them
 * validated, from the registry or, when the factory is called directly (a test), parsed here.
 */
export function platformConnector<S extends z.ZodType, E extends z.ZodRawShape>(
  parts: { settings: S; environment?: PlatformEnvironment<E> },
  build: (connection: ConnectionRecord, deps: ConnectorDeps, inputs: { settings: z.infer<S>; environment: z.infer<z.ZodObject<E>> }) => Connector,
  checkScope?: (scope: Scope) => void,
): ConnectorFactory {
  const factory = (connection: ConnectionRecord, deps: ConnectorDeps) =>
    build(connection, deps, {
      settings: (deps.settings as z.infer<S> | undefined) ?? validSettings(parts.settings, connection.settings),
      environment: (deps.environment ?? parts.environment?.read({} as Config) ?? {}) as z.infer<z.ZodObject<E>>,
    });
  return checkScope ? Object.assign(factory, { checkScope }) : factory;
}

/** The platforms this process has installed (the CLI fills it from its dependencies); pipelines use it unless given their own. */
export const installedPlatforms = new PlatformRegistry();
