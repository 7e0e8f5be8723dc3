/**
 * The environment's check that a suite leaves Node's HTTP client as it found it (test/setup/environment.js
 * fails the suite and puts the client back): core modules are shared by every suite of a jest worker.
 */
const http = require('node:http') as typeof import('node:http');
const https = require('node:https') as typeof import('node:https');
const { httpClientAsFound } = require('../setup/http-client-patches') as { httpClientAsFound: () => { putBack(): string[] } };

describe('a suite leaves Node\'s HTTP client as it found it', () => {
  it('names what was patched since, puts each back, and finds nothing on a client left alone', () => {
    const asFound = httpClientAsFound();
    const original = { request: http.request, get: https.get, set: Headers.prototype.set };
    expect(asFound.putBack()).toEqual([]);
    http.request = new Proxy(http.request, {});
    https.get = new Proxy(https.get, {});
    (Headers.prototype as unknown as Record<string, unknown>).set = new Proxy(Headers.prototype.set, {});
    expect(asFound.putBack()).toEqual(['http.request', 'https.get', 'Headers.prototype.set']);
    expect([http.request, https.get, Headers.prototype.set]).toEqual([original.request, original.get, original.set]);
    expect(asFound.putBack()).toEqual([]);
  });

  it('sees nock\'s patches, which nock.restore() undoes', () => {
    const asFound = httpClientAsFound();
    const original = http.request;
    const nock = require('nock') as typeof import('nock'); // activates on import, for the whole worker
    expect(http.request).not.toBe(original);
    nock.restore();
    expect(asFound.putBack()).toEqual([]);
  });
});
