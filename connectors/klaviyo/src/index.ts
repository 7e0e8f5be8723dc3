// The package's entry: the CLI installs the one platform module exported here (`definePlatform`).
export * from './platform';
export { KlaviyoApi, PROFILES_PAGE_SIZE, type ProfileUpdate } from './api';
export { KlaviyoChangesJournal } from './changes-journal';
export { keyConnection, newFlowSecret, oauthApp } from './connection';
export { API_PAGES_PER_CHUNK, CHUNK_SIZE, KlaviyoConnector } from './connector';
export { klaviyoEnvironment } from './environment';
export { KlaviyoErrors, klaviyoErrorFrom } from './errors';
export { NOT_CHECKED, klaviyoProperties } from './mapping';
export { authorizeUrl, codeVerifier } from './oauth';
export { RATE_LIMITS } from './rate-limits';
export { OAUTH_SCOPES, REQUIRED_SCOPES } from './scopes';
export { pinnedRevision } from './session';
export { KlaviyoSettings, klaviyoConnectionId } from './settings';
export { IMPORT_JOB_MAX_BYTES, IMPORT_JOB_MAX_PROFILES, importJobs, planWrites } from './write-plan';
export { FLOW_SECRET_HEADER, flowWebhookBody, klaviyoReceiver, parseFlowDelivery } from './webhook';
