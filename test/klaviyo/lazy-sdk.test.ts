/**
 * Every `verify-hub` command loads every installed platform module, so loading this one must not load
 * the official SDK (about 55 MB and 0.3 s): it loads with the first call that needs it.
 */
describe('the Klaviyo connector module', () => {
  /** Loads the module's index in a fresh registry, noting each time `klaviyo-api` itself is loaded. */
  function loadIsolated(): { sdkLoads: () => number; connector: typeof import('@verify-hub/connector-klaviyo') } {
    let loads = 0;
    let connector!: typeof import('@verify-hub/connector-klaviyo');
    jest.isolateModules(() => {
      jest.doMock('klaviyo-api', () => {
        loads += 1;
        return jest.requireActual('klaviyo-api');
      });
      connector = require('@verify-hub/connector-klaviyo');
    });
    return { sdkLoads: () => loads, connector };
  }

  afterEach(() => jest.dontMock('klaviyo-api'));

  it('does not load klaviyo-api when it is loaded', () => {
    const { sdkLoads, connector } = loadIsolated();
    expect(typeof connector.pinnedRevision).toBe('function');
    expect(sdkLoads()).toBe(0);
  });

  it('loads klaviyo-api on the first call that needs it, once', () => {
    const { sdkLoads, connector } = loadIsolated();
    const revision = connector.pinnedRevision();
    expect(revision).toMatch(/^\d{4}-\d{2}-\d{2}/);
    expect(connector.pinnedRevision()).toBe(revision);
    expect(sdkLoads()).toBe(1);
  });
});
