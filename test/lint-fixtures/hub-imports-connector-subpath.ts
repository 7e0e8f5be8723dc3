// lint as: webhooks-in/src/fixture.ts
// expect: never its internals
import { parse } from '@verify-hub/connector-hubspot/webhook';
export const x = parse;
