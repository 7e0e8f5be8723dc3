// lint as: webhooks-in/src/fixture.ts
// expect: never imports the engine or the CLI
import { KeyStore } from '@verify-hub/engine';
export const x = KeyStore;
