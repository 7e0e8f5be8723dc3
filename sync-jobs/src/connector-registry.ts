import { InputError, type ConnectionRecord, type Connector, type ConnectorDeps, type ConnectorFactory, type PlatformModule, type Scope } from '@verify-hub/core';

/** What the pipeline takes from a platform module besides its connector. */
export type PlatformFacts = Pick<PlatformModule, 'reconnectAdvice'>;

/** Which factory builds the connector of each platform, and the module's words the pipeline uses. The CLI's platforms.ts fills the default one. */
export class ConnectorRegistry {
  private readonly factories = new Map<string, ConnectorFactory>();
  private readonly facts = new Map<string, PlatformFacts>();

  register(platform: string, factory: ConnectorFactory, facts: PlatformFacts = {}): this {
    this.factories.set(platform, factory);
    this.facts.set(platform, facts);
    return this;
  }

  /** A registered module's connector and facts, under its id. */
  registerModule(module: Pick<PlatformModule, 'id' | 'connector'> & PlatformFacts): this {
    return this.register(module.id, module.connector, { reconnectAdvice: module.reconnectAdvice });
  }

  /** How a user reconnects a platform whose credentials were refused (its module's words), if it said. */
  reconnectAdvice(platform: string): string | undefined {
    return this.facts.get(platform)?.reconnectAdvice;
  }

  has(platform: string): boolean {
    return this.factories.has(platform);
  }

  platforms(): string[] {
    return [...this.factories.keys()].sort();
  }

  /** The platform's own judgement of a scope, without a connection (nothing when it has none). */
  checkScope(platform: string, scope: Scope): void {
    this.factories.get(platform)?.checkScope?.(scope);
  }

  create(connection: ConnectionRecord, deps: ConnectorDeps): Connector {
    const factory = this.factories.get(connection.platform);
    if (!factory) throw new InputError('platform', `no connector registered for "${connection.platform}" (known: ${this.platforms().join(', ') || 'none'})`);
    return factory(connection, deps);
  }
}

/** The process-wide registry used when a pipeline is not given its own. */
export const defaultConnectorRegistry = new ConnectorRegistry();

export function registerConnector(platform: string, factory: ConnectorFactory, facts: PlatformFacts = {}): void {
  defaultConnectorRegistry.register(platform, factory, facts);
}
