import type { CategoryInWords, CheckInWords, CostView, CronPreview, LedgerCategory, Risk, RowFlag, RunBreakdown, RunEstimate, RunRecord, RunSource, RunStatus } from '@verify-hub/core';

/*
 * The admin API's run, file, schedule and single-check answers: the one definition, used by the routes and
 * imported by the dashboard with `import type`. Like api-types.ts it imports nothing but core's
 * dependency-free wire types (core/src/wire.ts), so it type-checks in the browser's tsconfig too.
 */

export interface RunProgress {
  /** Contacts finished one way or another: written, unchanged or failed (skipped records were never pulled). */
  done: number;
  /** Contacts read from the source so far (the denominator while the source is still being paged). */
  pulled: number;
  /** The contacts the run is expected to go through, from a total known up front (a file's rows, less rows skipped so far): absent when the source gives none, until the run completed. */
  total?: number;
  /** 0..100 against `total`, never 100 before the run finished, never going back; absent when no total is known ("n so far"). */
  percent?: number;
  /** Seconds left at the recent rate (one-minute weighted), while the run is running and a total is known. */
  etaSeconds?: number;
}

/** A run as the admin API shows it (GET /api/runs, /api/runs/:id and its events): the record without server paths, and what people read. */
export interface RunView extends RunRecord {
  /** For people: the file's name, or the audience/list (the scope in words for runs from before names). */
  name: string;
  progress: RunProgress;
  /** The credits spent so far, in money too when priced. */
  spent: CostView;
}

/** GET /api/runs: the query (`q` is the service's `search`). */
export interface RunListQuery {
  status?: RunStatus;
  source?: RunSource;
  /** Case-insensitive words of the run's name (or its connection's label). */
  q?: string;
  limit?: number;
}

/** GET /api/runs/:id/breakdown: the pipeline's breakdown, with the ledger and the reasons in plain words. */
export interface RunBreakdownView extends Omit<RunBreakdown, 'reasons'> {
  /** The categories with contacts, in order, with their plain label and one-line explanation (core's ledgerInWords). */
  categories: CategoryInWords[];
  /** Most frequent first; `words`: the reason in plain words, when the hub knows it. */
  reasons: { reason: string; count: number; words?: string }[];
}

/** What GET /api/runs/:id/download?category= serves: the per-category files (ledger and flags), and the rejected-rows file as `unreadable`. */
export type DownloadCategory = Exclude<LedgerCategory, 'write_failed'> | RowFlag;

/** One downloadable list of a finished file run: its rows' count (the ledger's, or the flag's) and its links when it has rows. */
export interface CategoryDownload {
  category: DownloadCategory;
  label: string;
  explanation: string;
  count: number;
  /** Absent when the list has no rows (or the run was cleaned before per-category files existed). */
  csv?: string;
  xlsx?: string;
}

/** GET /api/runs/:id/downloads: the cleaned list, each category of the ledger and each flag, counted as the files were written. */
export interface RunDownloads {
  /** The cleaned file (every row not removed) and the removed rows, as the run wrote them. */
  cleaned: { count: number; href: string };
  /** `risks`: the risks whose rows were removed (absent for runs cleaned before the summary said). */
  removed: { count: number; href: string; risks?: string[] };
  summary: { href: string };
  /** Safe, risky, invalid, unknown, not checked, could not be read: every row once, counted as the ledger counts it. */
  categories: CategoryDownload[];
  /** Role, disposable, catch-all: rows carrying the flag, whatever their category. */
  flags: CategoryDownload[];
}

/** The wrong-column guard's answer: under half of the email column's first values look like addresses. */
export interface ColumnWarning {
  column: string;
  percent: number;
  suggestedColumn?: string;
  message: string;
}

/** An upload's estimate as answered (GET /api/files/:uploadId/estimate, and in a preview): the pipeline's counts, the ceiling and the wrong-column warning. */
export interface FileEstimate extends RunEstimate {
  /** The ceiling in credits (and money), worded by the hub: "At most N credits (≈ $X): ...". */
  cost: CostView;
  columnWarning?: ColumnWarning;
}

/** What the API answers about an upload. */
export interface UploadView {
  id: string;
  name: string;
  bytes: number;
  rows: number;
  columns: string[];
  emailColumn: string;
}

/** POST /api/files/preview: the upload with its first rows, and the credit estimate; nothing starts yet. */
export interface FilePreview {
  /** `sample`: the first rows, by column name. */
  upload: UploadView & { sample: Record<string, string>[] };
  estimate: FileEstimate;
}

/** Where a file run's outputs are downloaded (a re-check run has its own). */
export interface FileRunLinks {
  run: string;
  cleaned: string;
  removed: string;
  rejected: string;
  summary: string;
  downloads: string;
}

/** POST /api/files and /api/files/:uploadId/start (202): the run, the upload and where its files will be. */
export interface FileRunStarted {
  run: RunView;
  upload: UploadView;
  links: FileRunLinks;
}

/** GET /api/schedules/preview: the pattern in words and its next occurrences. */
export interface CronPreviewAnswer extends CronPreview {
  /** The pattern the schedule will run on (a preset's, or the one typed). */
  cron: string;
}

/** `POST /api/verify`: the canonical result and the same result in plain words. */
export interface SingleCheckAnswer {
  /** Core's Verification (inferred from its zod schema, which the browser build cannot see): the fields the dashboard reads, and the rest as sent. */
  verification: {
    email: string;
    normalized: string;
    score: number;
    risk: Risk;
    reason: string;
    checks: Record<string, unknown>;
    deliverability?: unknown;
    checkedAt: string;
    billable: boolean;
  };
  explanation: {
    /** One or two sentences: verdict, why, what to do (core's explainInWords). */
    summary: string;
    /** The reason code in plain words. */
    reason: string;
    /** Each check; `value` "not checked" where the check was not made. */
    checks: CheckInWords[];
    /** The address the engine suggests for a likely typo, or null. */
    didYouMean: string | null;
  };
}
