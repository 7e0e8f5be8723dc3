import { InputError, type ConnectionRecord, type Connector, type ConnectorDeps, type ConnectorFactory, type Scope } from '@verify-hub/core';

/** Which factory builds the connector of each platform. The CLI's wiring.ts fills the default one. */
export class ConnectorRegistry {
  private readonly factories = new Map<string, ConnectorFactory>();

  register(platform: string, factory: ConnectorFactory): this {
    this.factories.set(platform, factory);
    return this;
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

export function registerConnector(platform: string, factory: ConnectorFactory): void {
  defaultConnectorRegistry.register(platform, factory);
}
