export * from './fake-mailchimp';
export * from './fake-webhooks';
export * from './fake-campaigns';
