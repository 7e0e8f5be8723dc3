// The package's entry: the CLI installs the one platform module exported here (`definePlatform`).
export * from './platform';
export { PipedriveApi, PERSONS_PAGE_MAX, IDS_PER_CALL, type Person } from './api';
export { PipedriveConnector, burstAllowance } from './connector';
export { pipedriveEnvironment } from './environment';
export { PipedriveErrors } from './errors';
export { PERSON_FIELDS, RISK_OPTIONS, personContacts, verdictValues } from './mapping';
export { RateWindow } from './rate-window';
export { personsQuery, checkPipedriveScope } from './scope';
export { PipedriveSettings, pipedriveConnectionId } from './settings';
export { pipedriveReceiver } from './webhook';
export { WEBHOOK_PASSWORD, webhookUrl } from './webhook-registration';
export { WRITE_CONCURRENCY } from './write';
export { PANEL_PATH, panelView } from './panel';
