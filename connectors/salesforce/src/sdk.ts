import type * as SoqlParser from '@jetstreamapp/soql-parser-js';
import type * as Jsforce from 'jsforce';
import type * as Streaming from 'jsforce/api/streaming';
import type HttpApiClass from 'jsforce/lib/http-api';
import type TransportClass from 'jsforce/lib/transport';
import type { HttpRequest, HttpRequestOptions } from 'jsforce/lib/types';

/**
 * The official SDK and the SOQL parser, loaded with their first use rather than with the module:
 * jsforce costs about 30 MB and 0.3 s, the parser about 25 MB and 0.3 s, which every `verify-hub`
 * command that lists the platform modules would otherwise pay, Salesforce user or not.
 */
export const soqlParser = (): typeof SoqlParser => require('@jetstreamapp/soql-parser-js') as typeof SoqlParser;
export const jsforce = (): typeof Jsforce => require('jsforce') as typeof Jsforce;
export const jsforceStreaming = (): typeof Streaming => require('jsforce/api/streaming') as typeof Streaming;
export const jsforceHttpApi = (): typeof HttpApiClass => (require('jsforce/lib/http-api') as { default: typeof HttpApiClass }).default;

let noRetryTransportClass: (new () => TransportClass) | undefined;

/**
 * jsforce's transport with its own retries turned off: jsforce retries GETs five times on 5xx and 429
 * by default, but retry lives in one place per layer (the host's write retry and job layer), so a
 * Salesforce failure reaches the connector at once and becomes core's kind there. The class extends
 * jsforce's, so it is defined on the first call (once), when jsforce is loaded.
 */
export function noRetryTransport(): TransportClass {
  if (!noRetryTransportClass) {
    const Transport = (require('jsforce/lib/transport') as { default: typeof TransportClass }).default;
    noRetryTransportClass = class NoRetryTransport extends Transport {
      override httpRequest(request: HttpRequest, options: HttpRequestOptions = {}) {
        return super.httpRequest(request, { ...options, retry: { ...options.retry, maxRetries: 0 } });
      }
    };
  }
  return new noRetryTransportClass();
}
