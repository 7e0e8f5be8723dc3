import { definePlatform } from '@verify-hub/core';
import { fileConnectorFactory } from './factory';
import { FileOptionsSchema } from './options';

/**
 * Uploaded CSV and Excel files, as one platform module. Not a connection: an upload starts its run
 * (POST /api/files), so it has no key form and no connection card.
 */
export const filePlatform = definePlatform({
  id: 'file',
  label: 'File',
  connector: fileConnectorFactory,
  settings: FileOptionsSchema,
  connectable: false,
  card: { description: 'CSV and Excel uploads: cleaned copies and per-category files' },
});
