// lint as: core/src/fixture.ts
// expect: not by a relative path
import { KeyStore } from '../../engine/src/server/key-store';
export const x = KeyStore;
