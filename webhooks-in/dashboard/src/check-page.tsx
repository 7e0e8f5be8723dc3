import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, checkAddress, errorMessage, isAbort } from './api';
import type { Risk, SingleCheckAnswer } from './api-types';
import { ErrorAlert } from './error-alert';
import { formatDateTime } from './format';

const VERDICTS: Record<Risk, string> = { safe: 'Safe', risky: 'Risky', invalid: 'Invalid', unknown: 'Unknown' };

/**
 * One address checked now (`POST /api/verify`): the verdict and score, why in plain words, each check
 * ("not checked" where none was made) and the engine's typo suggestion, which can be checked in turn.
 * No run is started and no run's numbers change.
 */
export function CheckPage() {
  const [email, setEmail] = useState('');
  const [answer, setAnswer] = useState<SingleCheckAnswer>();
  const [error, setError] = useState<ApiError | Error>();
  const [busy, setBusy] = useState(false);
  const controller = useRef<AbortController>();

  useEffect(() => () => controller.current?.abort(), []);

  const check = async (address: string) => {
    if (busy) return;
    if (!address.trim()) {
      setAnswer(undefined);
      setError(new ApiError(400, 'INVALID_INPUT', 'Email address: enter the address to check, for example ada@acme.com.', 'body.email'));
      return;
    }
    setBusy(true);
    setError(undefined);
    controller.current?.abort();
    const current = new AbortController();
    controller.current = current;
    try {
      const result = await checkAddress(address.trim(), current.signal);
      setAnswer(result);
    } catch (caught) {
      if (isAbort(caught)) return;
      setAnswer(undefined);
      setError(caught as Error);
    } finally {
      if (controller.current === current) setBusy(false);
    }
  };

  const submit = (event: Event) => {
    event.preventDefault();
    void check(email);
  };

  const checkSuggestion = (suggestion: string) => {
    setEmail(suggestion);
    void check(suggestion).then(() => document.getElementById('check-email')?.focus());
  };

  const invalid = error instanceof ApiError && error.field === 'body.email' ? 'true' : undefined;
  const v = answer?.verification;
  const e = answer?.explanation;

  return (
    <>
      <h1 tabIndex={-1}>Check an address</h1>
      <p class="lead">Check one email address now: the verdict, each check and why, in plain words. It starts no run and changes no run's numbers.</p>
      <ErrorAlert id="check-error" message={error ? errorMessage(error) : undefined} />

      <form class="check-form" onSubmit={submit} noValidate aria-busy={busy ? 'true' : undefined}>
        <div class="form-row">
          <div class="field">
            <label for="check-email">Email address</label>
            <input
              id="check-email"
              type="email"
              autocomplete="off"
              spellcheck={false}
              placeholder="ada@acme.com"
              value={email}
              aria-invalid={invalid}
              aria-describedby={invalid ? 'check-error' : undefined}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
          </div>
          <div class="field check-submit">
            <button type="submit">{busy ? 'Checking…' : 'Check'}</button>
          </div>
        </div>
      </form>

      <section class="check-result" aria-live="polite" data-testid="check-result">
        {v && e && (
          <>
            <h2>
              Result for <span class="mono">{v.email}</span>
            </h2>
            <p class={`verdict risk-${v.risk}`} data-testid="check-verdict">
              <strong>{VERDICTS[v.risk]}</strong> · score {Math.round(v.score)}/100
            </p>
            <p data-testid="check-summary">{e.summary}</p>
            {e.didYouMean && (
              <p class="did-you-mean" data-testid="check-did-you-mean">
                Did you mean <strong class="mono">{e.didYouMean}</strong>?{' '}
                <button type="button" class="secondary" onClick={() => checkSuggestion(e.didYouMean!)}>
                  Check {e.didYouMean}
                </button>
              </p>
            )}
            <div class="table-wrap">
              <table class="checks" data-testid="check-checks">
                <caption>Checks</caption>
                <thead>
                  <tr>
                    <th scope="col">Check</th>
                    <th scope="col">Result</th>
                  </tr>
                </thead>
                <tbody>
                  {e.checks.map((c) => (
                    <tr key={c.check} class={c.checked ? undefined : 'not-checked'}>
                      <th scope="row">{c.label}</th>
                      <td>{c.value}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p class="muted small">
              Why: {e.reason} (reason code <code>{v.reason}</code>). Checked {formatDateTime(v.checkedAt)}
              {v.billable ? '' : '; not billed'}.
            </p>
          </>
        )}
      </section>
    </>
  );
}
