import { ConfigError, costText, creditsCost, estimateText, estimateView, loadConfig, pricingFromConfig, spentView } from '@verify-hub/core';

describe('price configuration', () => {
  it('reads a price per 1,000 credits and a currency (USD by default); unset means credits only', () => {
    expect(pricingFromConfig(loadConfig({}))).toBeUndefined();
    expect(pricingFromConfig(loadConfig({ VERIFY_HUB_PRICE_PER_1000: '1.20' }))).toEqual({ pricePer1000: 1.2, currency: 'USD' });
    expect(pricingFromConfig(loadConfig({ VERIFY_HUB_PRICE_PER_1000: '0.9', VERIFY_HUB_CURRENCY: 'eur' }))).toEqual({ pricePer1000: 0.9, currency: 'EUR' });
  });

  it.each([
    ['VERIFY_HUB_PRICE_PER_1000', '$1.20', /plain number/],
    ['VERIFY_HUB_PRICE_PER_1000', '-1', /plain number/],
    ['VERIFY_HUB_PRICE_PER_1000', 'one', /plain number/],
    ['VERIFY_HUB_CURRENCY', 'dollars', /ISO 4217/],
    ['VERIFY_HUB_CURRENCY', 'XYZ', /ISO 4217/],
  ])('refuses %s=%s naming the variable', (name, value, message) => {
    let caught: unknown;
    try {
      loadConfig({ VERIFY_HUB_PRICE_PER_1000: '1', [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).message).toContain(name);
    expect((caught as ConfigError).message).toMatch(message);
  });
});

describe('credits in money and the estimate in words', () => {
  const usd = { pricePer1000: 1.2, currency: 'USD' };

  it('prices credits per 1,000, to the cent, and says so when under a cent', () => {
    expect(creditsCost(1777, usd)).toEqual({ amount: 2.1324, currency: 'USD', text: '$2.13' });
    expect(creditsCost(119, usd).text).toBe('$0.14');
    expect(creditsCost(3, usd).text).toBe('less than $0.01');
    expect(creditsCost(0, usd).text).toBe('$0.00');
    expect(creditsCost(25_000, { pricePer1000: 1, currency: 'EUR' }).text).toBe('€25.00');
  });

  it('calls the estimate a ceiling and names what is free, with money only when priced', () => {
    expect(estimateText(1777, usd)).toBe('At most 1,777 credits (≈ $2.13): duplicates, addresses already checked recently and unknown results are free');
    expect(estimateText(1)).toBe('At most 1 credit: duplicates, addresses already checked recently and unknown results are free');
    expect(estimateText(0, usd)).toBe('No credits: nothing left to verify (duplicates, addresses already checked recently and unknown results are free)');
    expect(estimateView(1777, usd)).toEqual({ credits: 1777, money: { amount: 2.1324, currency: 'USD', text: '$2.13' }, text: estimateText(1777, usd) });
    expect(estimateView(10)).toEqual({ credits: 10, text: estimateText(10) });
  });

  it('states what a run spent', () => {
    expect(costText(119, usd)).toBe('119 credits (≈ $0.14)');
    expect(spentView(119)).toEqual({ credits: 119, text: '119 credits' });
    expect(spentView(119, usd).money?.text).toBe('$0.14');
  });
});
