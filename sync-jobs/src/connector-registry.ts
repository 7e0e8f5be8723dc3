import { PlatformRegistry, installedPlatforms, type ConnectorFactory, type PlatformModule } from '@verify-hub/core';

/**
 * The pipeline builds connectors from core's one platform registry (`PlatformRegistry`): the modules the
 * CLI installed, or a pipeline's own (tests). These names stay for the code that built its own.
 */
export { PlatformRegistry as ConnectorRegistry };
export const defaultConnectorRegistry = installedPlatforms;

/** A connector alone under an id, in the installed registry (tests and embedding; a platform registers its module). */
export function registerConnector(platform: string, factory: ConnectorFactory, facts: Pick<PlatformModule, 'reconnectAdvice' | 'writeBatchSize'> = {}): void {
  installedPlatforms.register(platform, factory, facts);
}
