// The package's entry: the CLI installs the one platform module exported here (`definePlatform`).
export * from './platform';
export { parseAccountUrl, type AccountUrl } from './account-url';
export { ActivecampaignClient } from './api-client';
export { BULK_IMPORT_LIMIT } from './bulk-import';
export { connectionFromToken } from './connection';
export { ActivecampaignConnector } from './connector';
export { activecampaignEnvironment } from './environment';
export { ActivecampaignErrors } from './errors';
export { EV_FIELDS, RISK_TAGS, riskTag } from './field-mapping';
export { CONTACTS_PAGE_SIZE } from './list-contacts';
export { resolveScope } from './scope';
export { ActivecampaignSettings, activecampaignConnectionId } from './settings';
export { parseDelivery, webhookPath } from './webhook-delivery';
export { HUB_WEBHOOK } from './webhook-registration';
export { planWrites } from './write-plan';
