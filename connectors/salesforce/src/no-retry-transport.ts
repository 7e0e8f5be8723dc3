import Transport from 'jsforce/lib/transport';
import type { HttpRequest, HttpRequestOptions } from 'jsforce/lib/types';

/**
 * jsforce's transport with its own retries turned off: jsforce retries GETs five times on 5xx and 429
 * by default, but retry lives in one place per layer (the host's write retry and job layer), so a
 * Salesforce failure reaches the connector at once and becomes core's kind there.
 */
export class NoRetryTransport extends Transport {
  override httpRequest(request: HttpRequest, options: HttpRequestOptions = {}) {
    return super.httpRequest(request, { ...options, retry: { ...options.retry, maxRetries: 0 } });
  }
}
