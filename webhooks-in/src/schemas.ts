import { z } from 'zod';

/** zod schemas of the admin API's inputs: one place, so the docs and the checks agree. */

export const RunId = z.string().regex(/^[A-Za-z0-9._:-]{1,200}$/, 'must be a run id (letters, digits, . _ : -)');
export const RunIdParams = z.object({ id: RunId });

export const RunOptionsSchema = z.strictObject({
  dryRun: z.boolean().optional(),
  maxCredits: z.number().int().min(0).optional(),
  freshnessDays: z.number().int().min(0).max(3650).optional(),
  actions: z.strictObject({ invalid: z.enum(['none', 'unsubscribe', 'archive']).optional() }).optional(),
});

/** `POST /api/runs/:id/resume`: optionally a new credit limit (a run stopped at its limit goes on with it). */
export const ResumeRunBody = z.strictObject({ maxCredits: RunOptionsSchema.shape.maxCredits });

export const StartRunBody = z.strictObject({
  platform: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/, 'must be a platform name such as hubspot or mailchimp')
    .refine((p) => p !== 'file', 'file runs start with an upload: POST /api/files'),
  connectionId: z.string().min(1).max(200).optional(),
  scope: z.string().min(1).max(2000),
  options: RunOptionsSchema.optional(),
});

export const RunStatusSchema = z.enum(['queued', 'running', 'paused', 'completed', 'failed', 'cancelled']);
export const ListRunsQuery = z.strictObject({
  status: RunStatusSchema.optional(),
  /** `file` (uploads) or `platform` (connected platforms). */
  source: z.enum(['file', 'platform']).optional(),
  /** Case-insensitive words of the run's name (or its connection's label). */
  q: z.string().trim().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** Form fields that may come with an uploaded file (multipart text fields, so strings). */
export const UploadFields = z.strictObject({
  /** The header of the email column, when detection should not guess. */
  column: z.string().min(1).max(200).optional(),
  /** `true` to also move risky rows to the removed-rows file. */
  removeRisky: z.enum(['true', 'false']).optional(),
  dryRun: z.enum(['true', 'false']).optional(),
  maxCredits: z.coerce.number().int().min(0).optional(),
  freshnessDays: z.coerce.number().int().min(0).max(3650).optional(),
});

export const HookEvent = z.enum(['run.completed', 'run.failed', 'run.cancelled']);
export const RegisterHookBody = z.strictObject({
  /** Where the hub POSTs run summaries. Zapier sends `targetUrl`-style REST hooks; `url` is accepted as the name here. */
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000),
  /** Which outcomes to send (default: all three). */
  events: z.array(HookEvent).min(1).optional(),
  /** The signing secret; generated when absent (returned once, in this response). */
  secret: z.string().min(16, 'must be at least 16 characters').max(200).optional(),
  /** A free label shown in the list (for example the Zap's id). */
  label: z.string().max(200).optional(),
});
export const HookIdParams = z.object({ id: z.string().regex(/^[a-f0-9-]{36}$/, 'must be a hook id') });
