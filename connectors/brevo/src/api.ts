import type { BrevoClient } from '@getbrevo/brevo';
import { VerifyHubError, logPlatformCall, logPlatformFailure, type CallLimiter, type Logger } from '@verify-hub/core';
import { BrevoErrors, BrevoNotFoundError, RECONNECT_WORDS } from './errors';
import { RateWindow, type Bucket } from './rate-window';
import { brevoSdk } from './sdk';

/** A promise the SDK returns: it can also hand over the raw response (its rate-limit headers). */
interface SdkCall<T> {
  withRawResponse(): Promise<{ data: T; rawResponse: { status: number; headers: Headers } }>;
}

/** The limiters every call goes through, shared by every worker: one per Brevo budget. */
export interface BrevoLimiters {
  /** `/v3/contacts/*`: 10/s and 36,000/h. */
  contacts: CallLimiter;
  contactsHour: CallLimiter;
  /** Every other endpoint (account, processes, webhooks): 100/h. */
  other: CallLimiter;
}

/**
 * Brevo's API through its official SDK (`BrevoClient`, one per connection, never shared). Every call
 * goes through its budget's limiter and the rate window (`x-sib-ratelimit-*`), and its failures become
 * core's kinds here, in one place: 401/403 refused credentials, 429 a rate limit until the reset the
 * headers give, 5xx, a timeout or no answer transient, 404 `BrevoNotFoundError`. The SDK retries
 * nothing (`maxRetries: 0`): the host owns retries.
 */
export class BrevoSdk {
  readonly client: BrevoClient;
  private readonly window = new RateWindow();

  constructor(
    apiKey: string,
    baseUrl: string,
    private readonly limiters: BrevoLimiters,
    private readonly logger?: Logger,
  ) {
    this.client = new (brevoSdk().BrevoClient)({ apiKey, baseUrl: baseUrl.replace(/\/+$/, ''), maxRetries: 0, timeoutInSeconds: 30 });
  }

  /** One call in `bucket`, named `what` ("GET /contacts") in logs and errors; never the key, never a query. */
  async call<T>(bucket: Bucket, what: string, send: (client: BrevoClient) => SdkCall<T>): Promise<T> {
    const limited = bucket === 'other' ? this.limiters.other : { schedule: <R>(fn: () => Promise<R>) => this.limiters.contactsHour.schedule(() => this.limiters.contacts.schedule(fn)) };
    return limited.schedule(async () => {
      await this.window.check(bucket, what);
      const started = performance.now();
      const [method, path] = what.split(' ') as [string, string];
      try {
        const { data, rawResponse } = await send(this.client).withRawResponse();
        this.window.observe(bucket, rawResponse.headers);
        logPlatformCall(this.logger, { method, path, status: rawResponse.status, durationMs: performance.now() - started, requestId: undefined });
        return data;
      } catch (error) {
        const mapped = this.mapped(bucket, what, error);
        logPlatformCall(this.logger, { method, path, status: mapped.status, durationMs: performance.now() - started, requestId: undefined });
        logPlatformFailure(this.logger, mapped, what);
        throw mapped;
      }
    });
  }

  /** An SDK failure as core's kind. Brevo's own message is kept (it never holds the key). */
  private mapped(bucket: Bucket, what: string, error: unknown): VerifyHubError {
    const { BrevoError, BrevoTimeoutError } = brevoSdk();
    if (error instanceof BrevoTimeoutError) return new BrevoErrors.TransientError(`Brevo did not answer ${what} in time`, { cause: error });
    if (!(error instanceof BrevoError)) return new BrevoErrors.TransientError(`Brevo could not be reached for ${what} (${(error as Error).message})`, { cause: error });
    const status = error.statusCode;
    const said = brevoMessage(error.body);
    if (status === undefined) return new BrevoErrors.TransientError(`Brevo could not be reached for ${what}`, { cause: error });
    if (status === 401) return new BrevoErrors.AuthError(`Brevo refused the API key (401 to ${what}${said ? `: ${said}` : ''}): ${RECONNECT_WORDS}`, { status });
    if (status === 403) {
      // Brevo answers 403 to a key used from an IP address the account has not authorised: nothing works until the user acts.
      return new BrevoErrors.AuthError(`Brevo refused the API key (403 to ${what}${said ? `: ${said}` : ''}): check Settings > Security > Authorised IPs, or ${RECONNECT_WORDS}`, { status });
    }
    if (status === 429) {
      const resetAt = this.window.refused(bucket, error.rawResponse?.headers);
      return new BrevoErrors.RateLimitError(`Brevo rate limit on ${what} (the ${bucket === 'other' ? '100 calls an hour of its non-contact endpoints' : 'contacts endpoints limit'})`, { resetAt, limit: this.window.limitOf(bucket) }, { status });
    }
    if (status >= 500) return new BrevoErrors.TransientError(`Brevo answered ${status} to ${what}`, { status });
    if (status === 404) return new BrevoNotFoundError(`Brevo has no such resource (${what}${said ? `: ${said}` : ''})`, { status });
    return new VerifyHubError(`Brevo answered ${status} to ${what}${said ? `: ${said}` : ''}`, { status });
  }
}

/** Brevo's error body is `{ code, message }`. */
function brevoMessage(body: unknown): string {
  if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string') return body.message.slice(0, 300);
  return '';
}
