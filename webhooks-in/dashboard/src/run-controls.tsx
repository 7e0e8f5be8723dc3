import type { RunStatus } from './api-types';

export type RunControl = 'pause' | 'resume' | 'cancel';

/** What a run in `status` can be told to do: a queued or running run pauses, a paused one resumes, any unfinished one cancels. */
export function runControls(status: RunStatus | undefined): { canPause: boolean; canResume: boolean; canCancel: boolean } {
  const canPause = status === 'queued' || status === 'running';
  const canResume = status === 'paused';
  return { canPause, canResume, canCancel: canPause || canResume };
}

/**
 * Pause/Resume (one button, so the focus stays on it when one turns into the other) and Cancel, for
 * the run page and each row of the runs list. `subject` names the run in the buttons' accessible
 * names where several runs share a page ("Pause run_abc").
 */
export function RunControls({ status, busy, onAct, subject }: { status: RunStatus; busy?: RunControl; onAct: (action: RunControl) => void; subject?: string }) {
  const { canPause, canResume, canCancel } = runControls(status);
  const name = (verb: string) => (subject ? `${verb} ${subject}` : undefined);
  const toggle = canPause ? 'pause' : 'resume';
  return (
    <>
      {(canPause || canResume) && (
        <button type="button" aria-label={name(canPause ? 'Pause' : 'Resume')} aria-busy={busy === 'pause' || busy === 'resume' ? 'true' : undefined} onClick={() => onAct(toggle)}>
          {canPause ? 'Pause' : 'Resume'}
        </button>
      )}{' '}
      {canCancel && (
        <button type="button" class="danger" aria-label={name('Cancel')} aria-busy={busy === 'cancel' ? 'true' : undefined} onClick={() => onAct('cancel')}>
          Cancel
        </button>
      )}
    </>
  );
}
