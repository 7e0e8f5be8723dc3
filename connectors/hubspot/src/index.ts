export { HubSpotConnector, hubspotConnectorFactory, createHubSpotConnectorFactory, UNINSTALL_PATH, type HubSpotConnectorOptions } from './connector';
export {
  DEFAULT_SCOPES, REFRESH_MARGIN_MS, hubspotInstallUrl, exchangeHubSpotCode, refreshHubSpotToken, needsRefresh, privateAppConnection, fetchAccountDetails,
  type InstallUrlOptions, type OAuthAppOptions,
} from './oauth';
export { HubSpotApiError, HubSpotAuthError, HubSpotDailyLimitError, HubSpotRateLimitError, HubSpotUnreachableError } from './errors';
export { DEFAULT_API_BASE, RATE_TIERS, hubspotConnectionId, resolveConnection, type HubSpotCredentials, type HubSpotSettings, type RateTier } from './settings';
export { parse as parseHubSpotWebhook, SIGNATURE_MAX_AGE_MS, MAX_EVENTS } from './webhook';
export { nextMidnight } from './portal-time';
export { OBJECTS_PAGE, SEARCH_PAGE, SEARCH_CAP, BATCH_MAX } from './pull';
export { parseActionCall, blockedAnswer, notConnectedAnswer, hubspotActionReceiver, BLOCK_EXPIRATION_MS, type ActionCall, type AnswerActionCall } from './workflow-action';
export {
  verifyActionDefinition, verifyActionComponent, actionOutputs, typedActionOutputs, actionCompletion, ACTION_COMPONENT_UID, NOT_CONNECTED_ERROR, FLAG_OUTPUTS, FLAG_VALUES,
  type ActionOutputFields, type VerifyActionDefinition,
} from './action-definition';
export { actionDefinitionsApi, DEFINITIONS_PATH } from './action-definitions-api';
export { completeActionBatched, CALLBACKS_PATH, MAX_CALLBACK_BATCH, type CallbackCompletion } from './callback-completions';
export * from './platform';
export * from './environment';
export * from './property-mapping';
export { HubSpotJournal, JournalOffsetExpiredError, parseJournalFile, JOURNAL_PATH, JOURNAL_SCOPE, type JournalEntry, type HubSpotJournalOptions } from './journal';
export { journalTask } from './journal-task';
export { CARD_ACTIONS, cardRoute, cardVerdicts, PortalNotConnectedError, cardView, hubspotCardReceiver, parseCardRequest, type CardAction, type CardCheck, type CardRequest, type CardVerdicts, type CardView } from './card';
