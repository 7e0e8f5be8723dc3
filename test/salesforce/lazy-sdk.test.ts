import { loadConfig } from '@verify-hub/core';

// Every `verify-hub` command loads every installed platform module: jsforce and the SOQL parser (about 55 MB) wait for their first use.
const HEAVY_ENTRIES = ['jsforce', 'jsforce/api/streaming', 'jsforce/lib/http-api', 'jsforce/lib/transport', '@jetstreamapp/soql-parser-js'];

/** Loads the package in a fresh module registry, noting each heavy library's entry the moment it is loaded. */
function loadWatched(): { salesforce: typeof import('@verify-hub/connector-salesforce'); loaded: string[] } {
  const loaded: string[] = [];
  let salesforce!: typeof import('@verify-hub/connector-salesforce');
  jest.isolateModules(() => {
    for (const entry of HEAVY_ENTRIES) {
      jest.doMock(entry, () => {
        loaded.push(entry);
        return jest.requireActual(entry);
      });
    }
    salesforce = require('@verify-hub/connector-salesforce');
  });
  return { salesforce, loaded };
}

afterEach(() => HEAVY_ENTRIES.forEach((entry) => jest.dontMock(entry)));

describe('Salesforce module load', () => {
  it('loading the platform module loads neither jsforce nor the SOQL parser', () => {
    const { salesforce, loaded } = loadWatched();
    expect(salesforce.salesforcePlatform).toBeDefined();
    expect(loaded).toEqual([]);
  });

  it('the first sign-in link loads jsforce, with its transport (retries turned off)', () => {
    const { salesforce, loaded } = loadWatched();
    const config = loadConfig({ HUB_SECRET_KEY: 'k'.repeat(40), SALESFORCE_CLIENT_ID: 'consumer-key', SALESFORCE_CLIENT_SECRET: 'consumer-secret' }, { platforms: [salesforce.salesforcePlatform] });
    const oauth = salesforce.salesforcePlatform.setup!({ config } as never)!.oauth!;
    const link = new URL(oauth.authorizeUrl('state-1', 'https://hub.example.com/oauth/salesforce/callback', {}));
    expect(link.searchParams.get('state')).toBe('state-1');
    expect(loaded).toEqual(expect.arrayContaining(['jsforce', 'jsforce/lib/transport']));
  });

  it('the first SOQL scope loads the parser', () => {
    const { salesforce, loaded } = loadWatched();
    expect(salesforce.validatedWhere("LeadSource = 'Web'")).toBe("LeadSource = 'Web'");
    expect(loaded).toEqual(['@jetstreamapp/soql-parser-js']);
  });
});
