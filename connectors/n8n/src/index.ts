export { EmailVerification } from './nodes/EmailVerification/EmailVerification.node';
export { VerifyHubApi } from './credentials/VerifyHubApi.credentials';
export { outputsFor, RISK_OUTPUTS } from './nodes/EmailVerification/outputs';
export { verifyProperties } from './nodes/EmailVerification/properties';
export { executeVerify, stopToNodeError, type ExecuteDeps } from './nodes/EmailVerification/execute-verify';
export { n8nFetch, CREDENTIAL_TYPE } from './nodes/EmailVerification/n8n-fetch';
export { RateLimitWaiter, type Clock } from './nodes/EmailVerification/rate-limit-wait';
