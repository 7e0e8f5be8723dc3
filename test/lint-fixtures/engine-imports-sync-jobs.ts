// lint as: engine/src/server/fixture.ts
// expect: the engine imports core only
import { RunService } from '@verify-hub/sync-jobs';
export const x = RunService;
