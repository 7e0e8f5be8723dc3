import { useState } from 'preact/hooks';
import { ApiError, errorMessage, signIn } from './api';
import { ErrorAlert } from './error-alert';

/**
 * The admin token is exchanged for an HttpOnly session cookie and then forgotten: it is never kept in
 * storage or put in a URL.
 */
export function SignInPage({ onSignedIn, notice, initialError }: { onSignedIn: () => void; notice?: string; initialError?: string }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(initialError);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    if (!token.trim()) {
      setError('Enter the admin token.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await signIn(token.trim());
      setToken('');
      onSignedIn();
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 401 ? 'That admin token is not right.' : errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="content" class="sign-in">
      <h1>Sign in to verify-hub</h1>
      {notice && <p class="notice">{notice}</p>}
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for="admin-token">Admin token</label>
          <input
            id="admin-token"
            type="password"
            autocomplete="current-password"
            spellcheck={false}
            value={token}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'sign-in-error' : undefined}
            onInput={(event) => setToken(event.currentTarget.value)}
          />
        </div>
        <ErrorAlert id="sign-in-error" message={error} />
        <button type="submit" aria-busy={busy ? 'true' : undefined}>
          Sign in
        </button>
      </form>
    </main>
  );
}
