export * from './fake-klaviyo';
export * from './fake-klaviyo-oauth';
