// The ES module entry (`import { VerifyHubClient } from '@verify-hub/client'`): the same implementation as
// the CommonJS entry, re-exported, so both forms share one copy of the code and its types.
export { VerifyHubClient, parseRateLimitReset, QUOTA_RESET_THRESHOLD_MS } from './index.js';
export type { VerificationResult, VerifyHubClientOptions, VerifyHubError, VerifyHubErrorCode, VerifyResponse } from './index.js';
