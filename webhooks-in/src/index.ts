export * from './deps';
export * from './app';
export * from './server';
export * from './hook-signature';
export * from './completion-hooks';
export * from './http-errors';
export { safeEqual } from './auth';
export { WEBHOOK_BODY_LIMIT } from './routes/webhooks';
export { UPLOAD_EXTENSIONS } from './routes/files';
