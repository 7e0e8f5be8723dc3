import { hubspotEnvironment, hubspotPlatform } from '@verify-hub/connector-hubspot';
import { loadConfig, secretConfigNames } from '@verify-hub/core';

describe("HubSpot's environment variables (its module's)", () => {
  it('default the API base and are read typed', () => {
    const config = loadConfig({ HUBSPOT_CLIENT_ID: 'id' }, { platforms: [hubspotPlatform] });
    expect(config).toMatchObject({ HUBSPOT_API_BASE: 'https://api.hubapi.com' });
    expect(hubspotEnvironment.read(config)).toEqual({ HUBSPOT_CLIENT_ID: 'id', HUBSPOT_API_BASE: 'https://api.hubapi.com' });
  });
  it('stop on a typo and on a malformed app id, naming the variable', () => {
    expect(() => loadConfig({ HUBSPOT_CLIENTID: 'id' }, { platforms: [hubspotPlatform] })).toThrow(/^HUBSPOT_CLIENTID: unknown configuration variable/);
    expect(() => loadConfig({ HUBSPOT_APP_ID: 'app' }, { platforms: [hubspotPlatform] })).toThrow(/^HUBSPOT_APP_ID: must be the numeric app id/);
  });
  it('keep the token, client secret and developer key secret', () => {
    expect(secretConfigNames([hubspotPlatform])).toEqual(new Set(['ENGINE_API_KEY', 'ENGINE_SMTP_PROXY', 'HUB_ADMIN_TOKEN', 'HUB_SECRET_KEY', 'HUBSPOT_ACCESS_TOKEN', 'HUBSPOT_CLIENT_SECRET', 'HUBSPOT_DEVELOPER_TOKEN']));
  });
});
