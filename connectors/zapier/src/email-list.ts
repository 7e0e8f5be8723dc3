import { InputError } from '@verify-hub/core';

export const MAX_LIST_ADDRESSES = 100;

/**
 * The addresses of the list action: line items (an array), a comma-, semicolon- or newline-separated
 * text, or a mix of both. Blank entries are dropped; duplicates are kept here (the batch dedupes them
 * and still answers each input). More than `MAX_LIST_ADDRESSES` is refused naming the field.
 */
export function parseEmailList(value: unknown, field = 'Email Addresses'): string[] {
  const items: unknown[] = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
  const emails: string[] = [];
  for (const item of items) {
    if (item === null || item === undefined) continue;
    if (typeof item !== 'string' && typeof item !== 'number') {
      throw new InputError(field, 'expected email addresses as text or line items, got an object');
    }
    for (const part of String(item).split(/[,;\r\n]+/)) {
      const email = part.trim();
      if (email !== '') emails.push(email);
    }
  }
  if (emails.length === 0) throw new InputError(field, 'no email address given: map line items or a comma/newline-separated list');
  if (emails.length > MAX_LIST_ADDRESSES) {
    throw new InputError(
      field,
      `${emails.length} addresses given, at most ${MAX_LIST_ADDRESSES} per step: split the list (for example with Looping by Zapier), or clean big lists as a file in verify-hub`,
    );
  }
  return emails;
}
