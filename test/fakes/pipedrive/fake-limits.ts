/**
 * Pipedrive's rate limits as its docs describe them, for the fake: a burst allowance per token in
 * 2-second windows (`x-ratelimit-limit`, `-remaining`, `-reset` in seconds on every answer) and a
 * daily budget per company (`x-daily-requests-left`), counted here in requests. Past either: 429 with
 * the documented body; past the daily budget `x-daily-requests-left: 0` says it is the day that is spent.
 */
export const OVER_LIMIT_BODY = {
  success: false,
  error: 'Request over limit',
  errorCode: 429,
  error_info: 'Please check developers.pipedrive.com for more information about Pipedrive API.',
};

export const BURST_WINDOW_MS = 2_000;

export class FakeLimits {
  private windows = new Map<string, { start: number; used: number }>();
  dailyUsed = 0;
  /** Answers refused with 429, by reason. */
  readonly refused = { burst: 0, daily: 0 };

  /** Pipedrive's window is 2 s; a test may hold one open longer, so a loaded machine cannot let it lapse mid-step. */
  windowMs = BURST_WINDOW_MS;

  constructor(
    public burstLimit: number,
    public dailyBudget: number,
  ) {}

  /** Takes one call of `token`: the headers to answer with, and whether it is over a limit. */
  take(token: string, now = Date.now()): { headers: Record<string, string>; over?: 'burst' | 'daily' } {
    let window = this.windows.get(token);
    if (!window || now - window.start >= this.windowMs) this.windows.set(token, (window = { start: now, used: 0 }));
    const resetSeconds = String(Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000)));
    const dailyLeft = () => String(Math.max(this.dailyBudget - this.dailyUsed, 0));
    if (this.dailyUsed >= this.dailyBudget) {
      this.refused.daily++;
      return { over: 'daily', headers: { 'x-ratelimit-limit': String(this.burstLimit), 'x-ratelimit-remaining': String(Math.max(this.burstLimit - window.used, 0)), 'x-ratelimit-reset': resetSeconds, 'x-daily-requests-left': '0' } };
    }
    if (window.used >= this.burstLimit) {
      this.refused.burst++;
      return { over: 'burst', headers: { 'x-ratelimit-limit': String(this.burstLimit), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': resetSeconds, 'x-daily-requests-left': dailyLeft() } };
    }
    window.used++;
    this.dailyUsed++;
    return { headers: { 'x-ratelimit-limit': String(this.burstLimit), 'x-ratelimit-remaining': String(this.burstLimit - window.used), 'x-ratelimit-reset': resetSeconds, 'x-daily-requests-left': dailyLeft() } };
  }
}
