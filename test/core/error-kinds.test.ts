import { AuthError, EngineAuthError, EngineQuotaError, EngineRateLimitError, QuotaError, RateLimitError } from '@verify-hub/core';
import { HubSpotAuthError, HubSpotDailyLimitError, HubSpotRateLimitError } from '@verify-hub/connector-hubspot';
import { MailchimpAuthError, MailchimpError, errorFromProblem } from '@verify-hub/connector-mailchimp';

describe('control-flow errors by kind, with their source', () => {
  it('every auth error is an AuthError naming its source; only the engine one is an EngineAuthError', () => {
    const engine = new EngineAuthError('engine rejected the API key (UNAUTHORIZED)', { status: 401 });
    const hubspot = new HubSpotAuthError('HubSpot rejected the access token (401); reconnect the portal', { status: 401 });
    const mailchimp = errorFromProblem(401, { title: 'API Key Invalid', detail: 'Your API key may be invalid, or you have attempted to access the wrong datacenter.' }, 'ping');
    for (const error of [engine, hubspot, mailchimp]) expect(error).toBeInstanceOf(AuthError);
    expect([engine, hubspot, mailchimp].map((e) => (e as AuthError).source)).toEqual(['engine', 'hubspot', 'mailchimp']);
    expect(hubspot).not.toBeInstanceOf(EngineAuthError);
    expect(mailchimp).not.toBeInstanceOf(EngineAuthError);
    // still a Mailchimp error for the connector's own code, with the problem's fields
    expect(mailchimp).toBeInstanceOf(MailchimpAuthError);
    expect(mailchimp).toBeInstanceOf(MailchimpError);
    expect(mailchimp).toMatchObject({ title: 'API Key Invalid', status: 401 });
    expect(errorFromProblem(404, {}, 'get')).not.toBeInstanceOf(AuthError);
  });

  it('a quota is a long rate limit: QuotaError before RateLimitError, and engine classes match only the engine', () => {
    const resetAt = Date.now() + 60_000;
    const engineQuota = new EngineQuotaError('quota', { resetAt });
    const engineRate = new EngineRateLimitError('rate', { resetAt });
    const daily = new HubSpotDailyLimitError('daily', { resetAt });
    const window = new HubSpotRateLimitError('window', { resetAt });
    expect(engineQuota).toBeInstanceOf(QuotaError);
    expect(engineQuota).toBeInstanceOf(EngineRateLimitError); // as callers have always relied on
    expect(engineRate).not.toBeInstanceOf(QuotaError);
    expect(daily).toBeInstanceOf(QuotaError);
    expect(daily).not.toBeInstanceOf(EngineQuotaError);
    expect(window).toBeInstanceOf(RateLimitError);
    expect(window).not.toBeInstanceOf(QuotaError);
    expect(window).not.toBeInstanceOf(EngineRateLimitError);
    expect(window.waitMs(resetAt - 1000)).toBe(1000);
  });
});
