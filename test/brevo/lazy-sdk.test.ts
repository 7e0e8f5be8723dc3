import { sep } from 'node:path';

/**
 * Every `verify-hub` command loads every installed platform module, so the Brevo module must not
 * load Brevo's SDK (about 20 MB and 0.14 s) until a connection is made. Jest's `require.cache`
 * lists the isolated registry, so what one load of the package brings in can be read.
 */
describe('Brevo SDK loading', () => {
  const sdkDir = `${sep}node_modules${sep}@getbrevo${sep}`;
  const sdkModules = (): string[] => Object.keys(require.cache).filter((path) => path.includes(sdkDir));

  it('loading the package loads nothing under node_modules/@getbrevo; the first connection does', () => {
    jest.isolateModules(() => {
      const brevo = require('@verify-hub/connector-brevo') as typeof import('@verify-hub/connector-brevo');
      expect(sdkModules()).toEqual([]);

      const limiter = { schedule: <R>(fn: () => Promise<R>) => fn() };
      const sdk = new brevo.BrevoSdk('xkeysib-test', 'http://127.0.0.1:9', { contacts: limiter, contactsHour: limiter, other: limiter });
      expect(sdk.client).toBeDefined();
      expect(sdkModules().length).toBeGreaterThan(0);
    });
  });
});
