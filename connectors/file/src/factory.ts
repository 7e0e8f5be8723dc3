import type { ConnectionRecord, ConnectorDeps, ConnectorFactory } from '@verify-hub/core';
import { checkFileScope, FileConnector } from './file-connector';
import type { FileConnectorOptions } from './options';

/**
 * Builds a file connector from a connection whose `settings` hold `FileConnectorOptions` (runs the
 * hub service starts with platform `file`): as the host validated them (`FileOptionsSchema`, the
 * module's `settings`), or validated by the connector when there is no host.
 */
export const fileConnectorFactory: ConnectorFactory = Object.assign((connection: ConnectionRecord, deps?: ConnectorDeps) => new FileConnector((deps?.settings ?? connection.settings ?? {}) as FileConnectorOptions), {
  checkScope: checkFileScope,
});
