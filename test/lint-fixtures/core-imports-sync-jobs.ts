// lint as: core/src/fixture.ts
// expect: core imports nothing of ours
import { RunService } from '@verify-hub/sync-jobs';
export const x = RunService;
