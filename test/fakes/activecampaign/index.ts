export { FakeActivecampaign, type FakeActivecampaignOptions, type FakeCall } from './fake-activecampaign';
export { MAX_CONTACTS_LIMIT } from './fake-contacts';
export { MAX_IMPORT_CONTACTS } from './fake-imports';
export { accountTime, type FakeContact } from './fake-store';
export type { Delivery, WebhookSource } from './fake-webhooks';
