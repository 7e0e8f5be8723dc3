/**
 * The admin API's answers as the dashboard reads them (issue 11's spec). The connection, platform,
 * schema and engine answers are imported from the server (`import type`, webhooks-in/src/api-types.ts,
 * which imports only core's dependency-free wire types); the run answers (sync-jobs' types) are still
 * copies here, to move the same way.
 */

export type RunStatus = 'queued' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';

export const FINISHED_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

export interface RunCounters {
  pulled: number;
  skipped: number;
  cached: number;
  verified: number;
  unknown: number;
  written: number;
  unchanged: number;
  failed: number;
  credits: number;
  rejected?: number;
  /** Records of a file that could not be read (listed in its rejected-rows file). */
  unreadable?: number;
}

/** Credits with money when the hub has a price (VERIFY_HUB_PRICE_PER_1000), and the hub's words for them (core's cost.ts). */
export interface CostView {
  credits: number;
  money?: { amount: number; currency: string; text: string };
  text: string;
}

export interface RunView {
  id: string;
  /** For people: the file's name, or the audience/list (the scope in words for runs from before names). */
  name: string;
  platform: string;
  connectionId?: string;
  /** The connection's label when the run started. */
  connectionLabel?: string;
  scope: string;
  options: { dryRun?: boolean; maxCredits?: number; freshnessDays?: number };
  status: RunStatus;
  statusReason?: string;
  resumeAt?: number;
  counters: RunCounters;
  /** The credits spent so far, in money too when priced. */
  spent: CostView;
  estimatedCredits?: number;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  expectedTotal?: number;
  /** `total` and `percent` only against a total known at start (a file's rows); `percent` never 100 before the end. */
  progress: { done: number; pulled: number; total?: number; percent?: number; etaSeconds?: number };
}

export type Risk = 'safe' | 'risky' | 'invalid' | 'unknown';

/** The run's one ledger: every contact in exactly one final category; `total` their sum. */
export type LedgerCategory = 'safe' | 'risky' | 'invalid' | 'unknown' | 'not_checked' | 'unreadable' | 'write_failed';

export interface RunBreakdown {
  risk: Record<Risk, number>;
  ledger: Record<LedgerCategory, number> & { total: number };
  /** The categories with contacts, in order, with their plain label and one-line explanation (from the hub). */
  categories: { category: LedgerCategory; label: string; count: number; explanation: string }[];
  /** `words`: the reason in plain words, when the hub knows it. */
  reasons: { reason: string; count: number; words?: string }[];
  failures: { contactId: string; email: string; error?: string }[];
  failuresTotal: number;
}

/** One list a finished file run offers for download: its rows' count and, when it has rows, its links. */
export interface CategoryDownload {
  category: string;
  label: string;
  explanation: string;
  count: number;
  csv?: string;
  xlsx?: string;
}

/** GET /api/runs/:id/downloads: the cleaned list, each category of the ledger and each flag, counted as the files were written. */
export interface RunDownloads {
  cleaned: { count: number; href: string };
  removed: { count: number; href: string; risks?: string[] };
  summary: { href: string };
  categories: CategoryDownload[];
  flags: CategoryDownload[];
}

export interface RunEstimate {
  contacts: number;
  unique: number;
  cached: number;
  estimatedCredits: number;
  /** The ceiling in credits (and money), worded by the hub: "At most N credits (≈ $X): ...". */
  cost: CostView;
  /** Under half of the email column's first values look like addresses. */
  columnWarning?: { column: string; percent: number; suggestedColumn?: string; message: string };
}

export type RunSource = 'file' | 'platform';

export interface RunListFilter {
  source?: RunSource;
  status?: RunStatus;
  q?: string;
}

export interface UploadInfo {
  id: string;
  name: string;
  bytes: number;
  rows: number;
  columns: string[];
  emailColumn?: string;
  /** The first rows, by column name. */
  sample: Record<string, string>[];
}

export interface FilePreview {
  upload: UploadInfo;
  estimate: RunEstimate;
}

export interface FileRunStarted {
  run: RunView;
  links: { run: string; cleaned: string; removed: string; summary: string };
}

// The connection, platform, schema and engine answers are the server's own types (erased by esbuild at build time).
export type {
  ConnectionSaved, ConnectionState, ConnectionView, ConnectionsAnswer, EngineKeyView, KeyField, KeyFieldChoice, KeyFieldChoices, PlatformInfo, PlatformView,
  PlatformsAnswer, SchemaReport, WebhookRegistrationView, WebhookUrlRenewed,
  EngineAccountUsage as EngineUsageView,
} from '../../src/api-types';

export interface StartRunRequest {
  platform: string;
  connectionId?: string;
  scope: string;
  options?: RunView['options'];
}

export interface ScheduleView {
  id: string;
  cron: string;
  timezone?: string;
  request: StartRunRequest;
  /** Epoch milliseconds of the next start. */
  next?: number;
  paused: boolean;
  description: string;
}

/** Every day / week on a day (0 Sunday to 6) / month on a day (1 to 28), at HH:MM. */
export type SchedulePreset =
  | { every: 'day'; time: string }
  | { every: 'week'; weekday: number; time: string }
  | { every: 'month'; day: number; time: string };

export interface CronPreview {
  description: string;
  /** The pattern the schedule will run on (a preset's, or the one typed). */
  cron?: string;
  /** ISO timestamps. */
  next: string[];
}

/** One check of a single-address result in plain words (core's `checksInWords`). */
export interface CheckInWords {
  check: string;
  label: string;
  /** "not checked" when the check was not made. */
  value: string;
  checked: boolean;
}

/** `POST /api/verify`: the canonical result and its plain-words explanation. */
export interface SingleCheckAnswer {
  verification: {
    email: string;
    normalized: string;
    score: number;
    risk: Risk;
    reason: string;
    checkedAt: string;
    billable: boolean;
  };
  explanation: {
    summary: string;
    reason: string;
    checks: CheckInWords[];
    didYouMean: string | null;
  };
}
