// lint as: connectors/hubspot/src/fixture.ts
// expect: a connector imports core only
import { FileConnector } from '@verify-hub/connector-file';
export const x = FileConnector;
