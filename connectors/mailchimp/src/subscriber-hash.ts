import { createHash } from 'node:crypto';

/** Mailchimp's member id: the MD5 of the lower-cased email address. */
export function subscriberHash(email: string): string {
  return createHash('md5').update(email.trim().toLowerCase(), 'utf8').digest('hex');
}
