import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, createEngineKey, engineUsage, errorMessage, listEngineKeys, revokeEngineKey } from './api';
import type { EngineKeyView, EngineUsageView } from './api-types';
import { copyText } from './copy-text';
import { ErrorAlert, Notice } from './error-alert';
import { rescueFocus } from './focus';
import { formatDateTime, formatRelative } from './format';
import { usePolling } from './use-polling';

/** Last use and usage move while the page is open: read again this often. */
const REFRESH_MS = 5_000;

const number = (n: number) => n.toLocaleString('en');

/**
 * The engine's API keys (create, name, revoke, last used) and the account's month against its quota
 * and rate limit. When the hub's engine is remote, the hub says where its keys are managed instead.
 */
export function ApiKeysPage() {
  const [keys, setKeys] = useState<EngineKeyView[]>();
  const [usage, setUsage] = useState<EngineUsageView>();
  const [elsewhere, setElsewhere] = useState<string>();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ key: string; name: string }>();
  const [copied, setCopied] = useState<string>();
  const [error, setError] = useState<Error>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  const keyField = useRef<HTMLInputElement>(null);

  // The new key takes the focus (and is selected), so it is read out and ready to copy.
  useEffect(() => {
    if (created) keyField.current?.focus();
  }, [created]);

  const refresh = usePolling(async (signal) => {
    try {
      const [keyAnswer, usageAnswer] = await Promise.all([listEngineKeys(signal), engineUsage(signal)]);
      setKeys(keyAnswer.keys);
      setUsage(usageAnswer);
      return REFRESH_MS;
    } catch (caught) {
      if (signal.aborted) return null;
      if (caught instanceof ApiError && caught.code === 'ENGINE_KEYS_ELSEWHERE') {
        setElsewhere(caught.message);
        return null;
      }
      setError(caught as Error);
      return REFRESH_MS;
    }
  }, []);

  const create = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    setCopied(undefined);
    try {
      const answer = await createEngineKey(name.trim());
      setCreated({ key: answer.key, name: answer.record.name });
      setName('');
      refresh();
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (key: EngineKeyView) => {
    if (busy) return;
    if (!window.confirm(`Revoke the key "${key.name}" (${key.display})? Requests with it are refused from now on; this cannot be undone.`)) return;
    setBusy(true);
    setError(undefined);
    try {
      await revokeEngineKey(key.id);
      setNotice(`Key "${key.name}" revoked: it is refused from its next request.`);
      refresh();
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
      rescueFocus();
    }
  };

  const nameInvalid = error instanceof ApiError && error.field?.endsWith('name');

  return (
    <>
      <h1 tabIndex={-1}>API keys</h1>
      <p class="lead">
        Keys for the engine's API (<code>GET /api/v1/verify</code> with the <code>X-API-Key</code> header). All keys share the account's quota and rate limit.
      </p>
      <ErrorAlert id="api-keys-error" message={error ? errorMessage(error) : undefined} />
      <Notice message={notice} />
      {elsewhere && <p data-testid="keys-elsewhere">{elsewhere}</p>}

      {!elsewhere && usage && (
        <section class="card" aria-labelledby="usage-heading" data-testid="usage">
          <h2 id="usage-heading">Usage this month</h2>
          <p>
            <strong data-testid="usage-used">{number(usage.used)}</strong> of <span data-testid="usage-quota">{number(usage.monthlyQuota)}</span> verifications used (
            <span data-testid="usage-remaining">{number(usage.remaining)}</span> left); the quota resets on{' '}
            <time dateTime={new Date(usage.resetsAt).toISOString()}>{formatDateTime(usage.resetsAt)}</time>.
          </p>
          <progress max={Math.max(1, usage.monthlyQuota)} value={Math.min(usage.used, usage.monthlyQuota)} aria-label="Share of this month's quota used" />
          <p>
            Rate limit: <span data-testid="usage-rate">{number(usage.ratePerSecond)}</span> requests per second. Unknown results are never counted.
          </p>
        </section>
      )}

      {!elsewhere && created && (
        <section class="webhook-once" aria-labelledby="new-key-heading">
          <h2 id="new-key-heading">Your new key "{created.name}"</h2>
          <p>
            <strong>Copy it now: you will not see it again.</strong> The engine keeps only a hash of it. Keep it out of web pages, URLs and repositories.
          </p>
          <div class="copy-row">
            <label for="new-api-key">New API key</label>
            <input id="new-api-key" ref={keyField} type="text" class="mono" readOnly value={created.key} onFocus={(event) => event.currentTarget.select()} />
            <button type="button" onClick={() => void copyText(created.key, keyField.current).then(setCopied)}>
              Copy
            </button>
          </div>
          <p role="status" class="small">
            {copied}
          </p>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setCreated(undefined);
              setCopied(undefined);
            }}
          >
            Done
          </button>
        </section>
      )}

      {!elsewhere && (
        <form class="schedule-form" onSubmit={create} noValidate>
          <h2>New key</h2>
          <div class="form-row">
            <div class="field">
              <label for="api-key-name">Name</label>
              <input
                id="api-key-name"
                type="text"
                autocomplete="off"
                maxLength={64}
                placeholder="Website sign-up form"
                value={name}
                aria-invalid={nameInvalid ? 'true' : undefined}
                aria-describedby="api-key-name-hint"
                onInput={(event) => setName(event.currentTarget.value)}
              />
              <span id="api-key-name-hint" class="muted small block">
                What it is for: letters, digits, spaces, dots, dashes or underscores.
              </span>
            </div>
          </div>
          <button type="submit" disabled={!name.trim()} aria-busy={busy ? 'true' : undefined}>
            Create key
          </button>
        </form>
      )}

      {!elsewhere && keys === undefined && !error && <p class="muted">Loading keys…</p>}
      {!elsewhere && keys !== undefined && keys.length === 0 && <p>No keys yet.</p>}
      {!elsewhere && keys !== undefined && keys.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td class="mono">{key.display}</td>
                  <td>
                    <time dateTime={key.createdAt}>{formatDateTime(key.createdAt)}</time>
                  </td>
                  <td data-testid="last-used">{key.lastUsedAt ? <time dateTime={key.lastUsedAt}>{formatRelative(key.lastUsedAt)}</time> : 'never'}</td>
                  <td class="status">{key.revokedAt ? `revoked ${formatDateTime(key.revokedAt)}` : 'active'}</td>
                  <td class="actions-cell">
                    {!key.revokedAt && (
                      <button type="button" class="danger" aria-label={`Revoke ${key.name}`} onClick={() => void revoke(key)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
