// lint as: webhooks-in/dashboard/src/fixture.tsx
// expect: with `import type` only
import { RISKS } from '@verify-hub/core';
export const x = RISKS;
