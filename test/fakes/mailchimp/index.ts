export * from './fake-mailchimp';
export * from './fake-webhooks';
