// lint as: webhooks-in/src/routes/fixture.ts
// expect: never its internals
import { resolveOptions } from '@verify-hub/connector-file/src/options';
export const x = resolveOptions;
