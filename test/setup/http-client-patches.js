/**
 * Node's HTTP client as a suite found it. Core modules (and the fetch classes jest hands every suite)
 * are one per worker, not one per suite: a suite that patches them (nock, msw) and does not undo it
 * sends every later suite of the worker through its dead interceptor, which jest reports only as a
 * deprecation warning ("'emitter' property was accessed on [ClientRequestInterceptor] after it was
 * soft deleted"), after the suite that caused it is gone.
 */
const http = require('node:http');
const https = require('node:https');

/** What interceptors replace: [name, owner, property]. */
const PATCHABLE = [
  ['http.request', http, 'request'],
  ['http.get', http, 'get'],
  ['http.ClientRequest', http, 'ClientRequest'],
  ['https.request', https, 'request'],
  ['https.get', https, 'get'],
  ['Headers.prototype.set', globalThis.Headers.prototype, 'set'],
  ['Headers.prototype.append', globalThis.Headers.prototype, 'append'],
  ['Headers.prototype.delete', globalThis.Headers.prototype, 'delete'],
];

/** Notes the client as it is now; `putBack()` restores anything changed since and names it. */
function httpClientAsFound() {
  const found = PATCHABLE.map(([name, owner, property]) => ({ name, owner, property, value: owner[property] }));
  return {
    putBack() {
      const changed = found.filter(({ owner, property, value }) => owner[property] !== value);
      for (const { owner, property, value } of changed) owner[property] = value;
      return changed.map(({ name }) => name);
    },
  };
}

module.exports = { httpClientAsFound };
