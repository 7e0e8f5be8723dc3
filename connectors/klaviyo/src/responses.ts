import { z } from 'zod';

/**
 * Klaviyo's answers as the connector reads them (JSON:API), validated here before use: only the parts
 * read, loose elsewhere, so a field Klaviyo adds never refuses an answer. The fake's answers are
 * checked against Klaviyo's own OpenAPI description in test/klaviyo/openapi-conformance.test.ts.
 */

const Links = z.looseObject({ next: z.string().nullish() });

export const ProfileResource = z.looseObject({
  type: z.literal('profile'),
  id: z.string().min(1),
  attributes: z.looseObject({
    email: z.string().nullish(),
    updated: z.string().nullish(),
    properties: z.record(z.string(), z.unknown()).nullish(),
  }),
});
export type ProfileResource = z.infer<typeof ProfileResource>;

export const ProfilePage = z.looseObject({ data: z.array(ProfileResource), links: Links.optional() });
export type ProfilePage = z.infer<typeof ProfilePage>;

export const AccountsAnswer = z.looseObject({
  data: z
    .array(
      z.looseObject({
        id: z.string().min(1),
        attributes: z.looseObject({ contact_information: z.looseObject({ organization_name: z.string().nullish() }).nullish() }).optional(),
      }),
    )
    .min(1),
});

export const NamedPage = z.looseObject({
  data: z.array(z.looseObject({ id: z.string().min(1), attributes: z.looseObject({ name: z.string().nullish() }) })),
  links: Links.optional(),
});

const JobStatus = z.enum(['cancelled', 'complete', 'processing', 'queued']);
export const ImportJobAnswer = z.looseObject({
  data: z.looseObject({
    type: z.literal('profile-bulk-import-job'),
    id: z.string().min(1),
    attributes: z.looseObject({
      status: JobStatus,
      total_count: z.number().int(),
      completed_count: z.number().int().nullish(),
      failed_count: z.number().int().nullish(),
    }),
  }),
});
export type ImportJob = z.infer<typeof ImportJobAnswer>['data'];

export const ImportErrorsPage = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string(),
      attributes: z.looseObject({
        code: z.string(),
        title: z.string(),
        detail: z.string(),
        original_payload: z.record(z.string(), z.unknown()).nullish(),
      }),
    }),
  ),
  links: Links.optional(),
});
export type ImportError = z.infer<typeof ImportErrorsPage>['data'][number];

export const SuppressJobAnswer = z.looseObject({
  data: z.looseObject({
    type: z.literal('profile-suppression-bulk-create-job'),
    id: z.string().min(1),
    attributes: z.looseObject({ status: JobStatus, total_count: z.number().int(), completed_count: z.number().int().nullish(), skipped_count: z.number().int().nullish() }),
  }),
});
export type SuppressJob = z.infer<typeof SuppressJobAnswer>['data'];

/** The cursor of the next page, from `links.next` (a full URL holding `page[cursor]`). */
export function nextCursor(page: { links?: { next?: string | null } }): string | undefined {
  const next = page.links?.next;
  if (!next) return undefined;
  try {
    return new URL(next).searchParams.get('page[cursor]') ?? undefined;
  } catch {
    return undefined;
  }
}
