/**
 * Zapier's own throttle in front of each operation (`operation.throttle`), per connection, so a busy
 * Zap stays under the engine's rate limit instead of collecting 429s. The hosted plans allow at least
 * 10 verifications per second per account; Zapier counts invocations, so the list action (up to 100
 * verifications each) gets a smaller budget. Throttled tasks are retried by Zapier, not dropped.
 */
export const SINGLE_VERIFICATION_THROTTLE = { window: 1, limit: 10, scope: ['auth' as const], retry: true };
export const LIST_VERIFICATION_THROTTLE = { window: 10, limit: 1, scope: ['auth' as const], retry: true };
