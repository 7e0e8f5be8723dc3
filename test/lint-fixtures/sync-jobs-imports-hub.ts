// lint as: sync-jobs/src/fixture.ts
// expect: sync-jobs imports core and the connectors only
import { createHubApp } from '@verify-hub/webhooks-in';
export const x = createHubApp;
