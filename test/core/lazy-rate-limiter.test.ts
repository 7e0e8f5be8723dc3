import { sep } from 'node:path';

/**
 * Every connector and the CLI import core, and most never throttle a credential: core must not load
 * rate-limiter-flexible (36 modules, ~45 ms) until a CredentialThrottle is made. Jest's `require.cache`
 * lists the isolated registry, so what one load of the package brings in can be read.
 */
describe('rate-limiter-flexible loading', () => {
  const libDir = `${sep}node_modules${sep}rate-limiter-flexible${sep}`;
  const libModules = (): string[] => Object.keys(require.cache).filter((path) => path.includes(libDir));

  it('loading core loads nothing of it; the first credential throttle does', () => {
    jest.isolateModules(() => {
      const core = require('@verify-hub/core') as typeof import('@verify-hub/core');
      expect(libModules()).toEqual([]);
      // No command is sent until a check is made: a client object is all the constructor needs.
      const throttle = new core.CredentialThrottle({}, 'vhtest:lazy:');
      expect(throttle).toBeDefined();
      expect(libModules().length).toBeGreaterThan(0);
    });
  });
});
