// lint as: webhooks-in/dashboard/src/fixture.tsx
// expect: with `import type` only
import { runView } from '../../src/run-view';
export const x = runView;
