// The package's entry: the CLI installs the one platform module exported here (`definePlatform`).
export * from './platform';
export { BrevoSdk } from './api';
export { BrevoApi, CONTACTS_PAGE_SIZE } from './brevo-api';
export { BrevoConnector, checkBrevoScope, oneOffConnector, resolveBrevoScope } from './connector';
export { brevoEnvironment, DEFAULT_API_BASE } from './environment';
export { BrevoErrors } from './errors';
export { brevoKeyConnection } from './key-connection';
export { ATTRIBUTE_NAMES, BREVO_ATTRIBUTES, NOT_CHECKED, brevoAttributes } from './mapping';
export { BREVO_LIMITS } from './rate-window';
export { BrevoSettings, DEFAULT_LIST_NAME, brevoConnectionId } from './settings';
export { brevoReceiver, isHubWebhookFor, webhookPath } from './webhook';
export { registerHubWebhook } from './webhook-registration';
