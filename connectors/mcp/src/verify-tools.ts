import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BatchVerifier, RISKS, VerifyHubError, type BatchReport, type Verification, type Verifier } from '@verify-hub/core';
import { z } from 'zod';
import { TOOL_DEFAULTS, type McpToolOptions } from './options';
import { PortableResultSchema, toPortableResult } from './portable';
import { describeError, toolError } from './tool-errors';

/** RFC 5321 caps a path at 254 octets; a little headroom lets the engine name the problem itself. */
const EmailField = z.string().trim().min(1, 'must not be empty').max(320, 'is longer than any email address can be');

export const MAX_BATCH = 100;

export const VerifyEmailInput = {
  email: EmailField.describe('The email address to verify, for example "jane.doe@example.com".'),
};

export const VerifyEmailsInput = {
  emails: z
    .array(EmailField.describe('One email address.'))
    .min(1, 'needs at least one address')
    .max(MAX_BATCH, `takes at most ${MAX_BATCH} addresses per call; split the list`)
    .describe(`The addresses to verify, 1 to ${MAX_BATCH}. Duplicates are verified (and charged) once.`),
};

export const BatchSummarySchema = z.object({
  total: z.number().int().describe('Addresses given, duplicates included.'),
  safe: z.number().int().describe('Results with risk safe.'),
  risky: z.number().int().describe('Results with risk risky.'),
  invalid: z.number().int().describe('Results with risk invalid.'),
  unknown: z.number().int().describe('Results with risk unknown (not charged; check them again later).'),
  duplicates: z.number().int().describe('Inputs that repeated an earlier address (verified and charged once).'),
  credits: z.number().int().describe('Credits this call used.'),
});

export const VerifyEmailsOutput = {
  results: z.array(PortableResultSchema.describe('The result for one input.')).describe('One result per input, in input order.'),
  summary: BatchSummarySchema.describe('Counts by risk, duplicates and the credits used.'),
};

/**
 * Both verify tools go through core's BatchVerifier, so a short engine rate limit is waited out
 * (bounded by `maxRateLimitWaitMs`) and auth, quota and long rate limits stop the call cleanly.
 */
function runBatch(verifier: Verifier, emails: string[], options: McpToolOptions, signal?: AbortSignal): Promise<BatchReport> {
  return new BatchVerifier(verifier, {
    concurrency: options.concurrency ?? TOOL_DEFAULTS.concurrency,
    maxRateLimitWaitMs: options.maxRateLimitWaitMs ?? TOOL_DEFAULTS.maxRateLimitWaitMs,
    signal,
  }).verifyAll(emails);
}

function stopError(stopped: NonNullable<BatchReport['stopped']>): unknown {
  return stopped.error ?? new VerifyHubError(stopped.message);
}

export function summaryLine(v: Pick<Verification, 'email' | 'risk' | 'score' | 'reason' | 'billable'>): string {
  return `${v.email}: ${v.risk} (score ${v.score}, reason ${v.reason})${v.billable ? '' : ', no credit used'}`;
}

export async function verifyEmailTool(verifier: Verifier, email: string, options: McpToolOptions, signal?: AbortSignal): Promise<CallToolResult> {
  const report = await runBatch(verifier, [email], options, signal);
  if (report.stopped) return toolError(stopError(report.stopped));
  const result = toPortableResult(report.results[0]!);
  return {
    structuredContent: result,
    content: [
      { type: 'text', text: summaryLine(result) },
      { type: 'text', text: JSON.stringify(result) },
    ],
  };
}

export async function verifyEmailsTool(verifier: Verifier, emails: string[], options: McpToolOptions, signal?: AbortSignal): Promise<CallToolResult> {
  const report = await runBatch(verifier, emails, options, signal);
  // A repeated address shares one result; `email` stays each input's own spelling ("as given").
  const asGiven = report.results.map((r, i) => r && toPortableResult({ ...r, email: emails[i]! }));
  const done = asGiven.filter((r) => r !== undefined);
  if (report.stopped) {
    const partial = asGiven.map((r, i) => r ?? { email: emails[i], pending: true });
    return {
      isError: true,
      content: [
        { type: 'text', text: `${describeError(stopError(report.stopped))} ${done.length} of ${emails.length} addresses have a result; the others are marked pending.` },
        { type: 'text', text: JSON.stringify({ results: partial }) },
      ],
    };
  }
  const summary = {
    total: emails.length,
    ...Object.fromEntries(RISKS.map((risk) => [risk, done.filter((r) => r.risk === risk).length])),
    duplicates: report.counters.deduped,
    credits: report.counters.credits,
  } as z.infer<typeof BatchSummarySchema>;
  const structured = { results: done, summary };
  return {
    structuredContent: structured,
    content: [
      {
        type: 'text',
        text: `${summary.total} addresses: ${summary.safe} safe, ${summary.risky} risky, ${summary.invalid} invalid, ${summary.unknown} unknown; ${summary.credits} credits used.\n${done.map(summaryLine).join('\n')}`,
      },
      { type: 'text', text: JSON.stringify(structured) },
    ],
  };
}
