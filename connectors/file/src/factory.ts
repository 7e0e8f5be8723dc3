import type { ConnectionRecord, ConnectorFactory } from '@verify-hub/core';
import { checkFileScope, FileConnector } from './file-connector';
import type { FileConnectorOptions } from './options';

/**
 * Builds a file connector from a connection whose `settings` hold `FileConnectorOptions` (runs the
 * hub service starts with platform `file`). Options are validated; a bad one names its field.
 */
export const fileConnectorFactory: ConnectorFactory = Object.assign((connection: ConnectionRecord) => new FileConnector((connection.settings ?? {}) as unknown as FileConnectorOptions), {
  checkScope: checkFileScope,
});
