// The package's entry: the CLI installs the one platform module exported here (`definePlatform`).
export * from './platform';
export { SalesforceConnector, openSalesforceSession } from './connector';
export { SalesforceSession, type ApiUsage } from './session';
export { salesforceEnvironment, type SalesforceEnvironment } from './environment';
export { SalesforceErrors, salesforceError, RECONNECT_WORDS } from './errors';
export { SALESFORCE_FIELD_NAMES, FIELD_API_NAMES, NOT_CHECKED, fieldDefinitions, salesforceFieldValues } from './mapping';
export { SalesforceSettings, salesforceConnectionId, DEFAULT_API_VERSION } from './settings';
export { readPlan, validatedWhere } from './soql';
export { PERMISSION_SET } from './schema';
export { REST_PAGE, BULK_PAGE, COLLECTION_SIZE, estimateCalls } from './allowance';
export { jwtAssertion, pkceChallenge, pkceVerifier } from './oauth';
export { EXTERNAL_SERVICES_RULES, externalServicesProblems, type ExternalServicesProblem, type ExternalServicesRule } from './external-services-rules';
export { CDC_CHANNELS, CDC_OBJECTS, HUB_CLIENT_ID, readChange, type CdcObject, type ReadChange } from './cdc-events';
export { CdcJournal, ChangeDataCaptureUnavailableError, StreamingAuthError, type CdcJournalOptions } from './cdc-journal';
export { SalesforceChangeJournal, DEFAULT_POLL_MS, POLL_OVERLAP_MS } from './cdc-fallback';
export { CHANGE_DATA_CAPTURE_EDITIONS, DEFAULT_ENTITY_ALLOCATION, STANDARD_CHANNEL, ensureChangeEventSelection, realTimeLines, type RealTimeReport } from './cdc-setup';
export { changeEventsTask, type ChangeEventsTaskOptions } from './cdc-task';
