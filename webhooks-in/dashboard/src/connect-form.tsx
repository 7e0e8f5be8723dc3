import { useState } from 'preact/hooks';
import { ApiError, oauthStartUrl, saveConnection } from './api';
import type { ConnectionSaved, KeyField, PlatformInfo } from './api-types';
import { ChoiceField } from './choice-field';
import { ErrorAlert } from './error-alert';
import { platformName } from './format';

/**
 * Connecting a platform: "Sign in with …" (a plain link to the hub's OAuth start, which redirects to
 * the platform) when the hub has an OAuth app for it, and the platform's key fields either way.
 */
export function ConnectForm({
  platform,
  info,
  onSaved,
  onClose,
}: {
  platform: string;
  info: PlatformInfo;
  onSaved: (saved: ConnectionSaved) => void;
  onClose: () => void;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const name = platformName(platform);
  const headingId = `connect-${platform}-heading`;
  const errorId = `connect-${platform}-error`;
  const hasLabelField = info.keyFields.some((field) => field.name === 'label');
  // The hub's OAuth start takes what the form's `choice` fields picked (the list a sign-in is for), when it has them.
  const choiceFields = info.keyFields.filter((field) => field.choice);
  const picked = Object.fromEntries(choiceFields.map((field) => [field.name, values[field.name]?.trim() ?? '']).filter(([, value]) => value));

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const missing = info.keyFields.find((field) => !(values[field.name] ?? '').trim());
    if (missing) {
      setError(new ApiError(400, 'INVALID_INPUT', `${missing.label}: required`, missing.name));
      return;
    }
    const body: Record<string, string> = {};
    for (const [key, value] of Object.entries(values)) if (value.trim()) body[key] = value.trim();
    setBusy(true);
    setError(undefined);
    try {
      onSaved(await saveConnection(platform, body));
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', String(caught)));
      setBusy(false);
    }
  };

  const setValue = (fieldName: string, value: string) => setValues((current) => ({ ...current, [fieldName]: value }));

  const input = (fieldName: string, label: string, options: { secret?: boolean; help?: string; choiceOf?: KeyField } = {}) => {
    const id = `connect-${platform}-${fieldName}`;
    const invalid = error?.field === fieldName;
    const describedBy = [options.help ? `${id}-help` : '', invalid ? errorId : ''].filter(Boolean).join(' ') || undefined;
    const choiceOf = options.choiceOf;
    return (
      <div class="field" key={fieldName}>
        <label for={id}>{label}</label>
        {choiceOf ? (
          <ChoiceField
            platform={platform}
            field={choiceOf}
            id={id}
            value={values[fieldName] ?? ''}
            onChange={(value) => setValue(fieldName, value)}
            otherFields={info.keyFields.filter((other) => other !== choiceOf)}
            otherValues={values}
            invalid={invalid}
            describedBy={describedBy}
          />
        ) : (
          <input
            id={id}
            name={fieldName}
            type={options.secret ? 'password' : 'text'}
            autocomplete="off"
            spellcheck={false}
            value={values[fieldName] ?? ''}
            aria-invalid={invalid ? 'true' : undefined}
            aria-describedby={describedBy}
            onInput={(event) => setValue(fieldName, event.currentTarget.value)}
          />
        )}
        {options.help && (
          <p id={`${id}-help`} class="muted small">
            {options.help}
          </p>
        )}
      </div>
    );
  };

  return (
    <section class="connect-form" aria-labelledby={headingId}>
      <h2 id={headingId}>Connect {name}</h2>
      {info.oauth && (
        <>
          <p>
            <a class="button" href={oauthStartUrl(platform, picked)}>
              Sign in with {name}
            </a>
          </p>
          {choiceFields.length > 0 && <p class="muted small">Fill in the {choiceFields.map((field) => field.label).join(' and ')} below first to sign in for it.</p>}
          {info.keyFields.length > 0 && <p class="muted">Or paste a key:</p>}
        </>
      )}
      {info.keyFields.length > 0 && (
        <form onSubmit={submit} noValidate>
          {info.keyFields.map((field) => input(field.name, field.label, { secret: field.secret, help: field.help, choiceOf: field.choice ? field : undefined }))}
          {!hasLabelField && input('label', 'Name for this connection (optional)')}
          <ErrorAlert id={errorId} message={error?.message} />
          <div class="actions">
            <button type="submit" aria-busy={busy ? 'true' : undefined}>
              Save connection
            </button>
            <button type="button" class="secondary" onClick={onClose}>
              Close
            </button>
          </div>
        </form>
      )}
      {info.keyFields.length === 0 && (
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      )}
    </section>
  );
}
