export * from './fake-mailchimp';
