import { HubSpotApiError } from './errors';

/**
 * Completing blocked workflow actions as HubSpot publishes it: `POST .../callbacks/{callbackId}/complete`
 * with a `CallbackCompletionRequest` (`outputFields` and `typedOutputs`), or, when several of one
 * portal are due at once, one `POST .../callbacks/complete` with their `inputs`.
 *
 * Each completion is a durable job of its own; the jobs of one portal that finish within
 * `BATCH_WINDOW_MS` of each other in this process are sent as one batch call. A batch HubSpot refuses
 * (one callback expired or completed already) is sent again one by one, so each job gets its own
 * answer; any other failure is every job's, and each retries as it would alone.
 *
 * `failureReasonType` is not sent: the published schema leaves it a free string with no enum, and this
 * action never completes as a failure (an engine failure is the output risk `unknown`).
 */
export const CALLBACKS_PATH = '/automation/v4/actions/callbacks';
/** At most this many callbacks in one batch call (HubSpot's batch size elsewhere; the schema sets none). */
export const MAX_CALLBACK_BATCH = 100;
const BATCH_WINDOW_MS = 25;

export interface CallbackCompletion {
  callbackId: string;
  outputFields: Record<string, string>;
  typedOutputs: Record<string, string | number>;
}

/** Sends completions of one portal: one on the single endpoint, several on the batch endpoint. */
export type SendCompletions = (completions: CallbackCompletion[]) => Promise<void>;

interface Waiting {
  completion: CallbackCompletion;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Gathering {
  waiting: Waiting[];
  send: SendCompletions;
  timer?: NodeJS.Timeout;
}

const gathering = new Map<string, Gathering>();

/** A refusal that may concern one callback of the batch only (not auth, limits or HubSpot's trouble). */
function refusedByContent(error: unknown): boolean {
  return error instanceof HubSpotApiError && error.status !== undefined && error.status >= 400 && error.status < 500 && ![401, 403, 429].includes(error.status);
}

async function flush(portalId: string): Promise<void> {
  const open = gathering.get(portalId);
  if (!open) return;
  clearTimeout(open.timer);
  const batch = open.waiting.splice(0, MAX_CALLBACK_BATCH);
  if (open.waiting.length === 0) gathering.delete(portalId);
  else open.timer = setTimeout(() => void flush(portalId), 0);
  try {
    await open.send(batch.map((w) => w.completion));
    for (const w of batch) w.resolve();
  } catch (error) {
    if (batch.length === 1 || !refusedByContent(error)) return void batch.forEach((w) => w.reject(error));
    await Promise.all(batch.map((w) => open.send([w.completion]).then(w.resolve, w.reject)));
  }
}

/**
 * Completes one callback, gathered with the portal's others due within the window. `send` is the
 * latest connector's (any connector of the portal sends with its token and limiter).
 */
export function completeActionBatched(portalId: string, completion: CallbackCompletion, send: SendCompletions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const open = gathering.get(portalId) ?? { waiting: [], send };
    open.send = send;
    open.waiting.push({ completion, resolve, reject });
    gathering.set(portalId, open);
    if (open.waiting.length >= MAX_CALLBACK_BATCH) void flush(portalId);
    else open.timer ??= setTimeout(() => void flush(portalId), BATCH_WINDOW_MS);
  });
}
