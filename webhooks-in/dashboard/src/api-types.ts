import type { RunStatus } from '@verify-hub/core';

/**
 * The admin API's answers as the dashboard reads them (issue 11's spec): the server's own types, imported
 * with `import type` (esbuild erases them). The hub's answers come from webhooks-in/src/api-types.ts, the
 * run, ledger, cost and check shapes from core's dependency-free wire files (core/src/wire.ts, which this
 * tsconfig maps `@verify-hub/core` to). A server change that breaks a page fails `npm run typecheck`.
 */
export type {
  CategoryDownload, ConnectionSaved, ConnectionState, ConnectionView, ConnectionsAnswer, CronPreviewAnswer, EngineKeyView, FileEstimate, FilePreview, FileRunStarted,
  KeyField, KeyFieldChoice, KeyFieldChoices, PlatformInfo, PlatformView, PlatformsAnswer, RunBreakdownView, RunDownloads, RunListQuery, RunView, SchemaReport,
  SingleCheckAnswer, UploadView, WebhookRegistrationView, WebhookRequest, WebhookUrlRenewed,
  EngineAccountUsage as EngineUsageView,
} from '../../src/api-types';
export type { AccuracyAnswer, AccuracyReason, AccuracyReport, AccuracyVerdict, DeliveryCounts, VerdictAccuracy } from '@verify-hub/core';
export type { CheckInWords, CostView, LedgerCategory, Risk, RunCounters, RunSource, RunStatus, SchedulePreset, ScheduleView, StartRunRequest } from '@verify-hub/core';

// A value, so the dashboard keeps its own copy of core's FINISHED_RUN_STATUSES (it may import no server code at run time); typed by the server's RunStatus.
export const FINISHED_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];
