import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EngineAuthError, EngineQuotaError, EngineRateLimitError, VerifyHubError } from '@verify-hub/core';

/**
 * The one place where a failure becomes a tool error (`isError: true`) an assistant can read and act
 * on: what happened, and what to do next. Messages never carry the API key.
 */
export function toolError(error: unknown, now = Date.now()): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: describeError(error, now) }] };
}

export function describeError(error: unknown, now = Date.now()): string {
  if (error instanceof EngineQuotaError) {
    return (
      `QUOTA_EXCEEDED: the verification quota of this API key is used up until ${new Date(error.resetAt).toISOString()}. ` +
      'Buy a credit pack or upgrade the plan, or try again after that time. No further addresses were verified.'
    );
  }
  if (error instanceof EngineRateLimitError) {
    const seconds = Math.max(1, Math.ceil(error.waitMs(now) / 1000));
    return `RATE_LIMITED: the engine's rate limit was reached; it resets at ${new Date(error.resetAt).toISOString()} (in about ${seconds} s). Call the tool again after that.`;
  }
  if (error instanceof EngineAuthError) {
    return 'UNAUTHORIZED: the engine rejected the API key (missing, invalid or revoked). Check the key configured for this connector; retrying will not help.';
  }
  if (error instanceof VerifyHubError) return `${error.code}: ${error.message}`;
  return `INTERNAL_ERROR: ${error instanceof Error ? error.message : String(error)}`;
}
