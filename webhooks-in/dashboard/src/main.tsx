import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage, hasSession, listPlatforms, setUnauthorizedHandler, signOut, signOutEverywhere } from './api';
import { rememberPlatforms } from './format';
import { CheckPage } from './check-page';
import { ConnectionsPage } from './connections-page';
import { FilesPage } from './files-page';
import { Nav } from './nav';
import { useRoute, type Route } from './router';
import { RunPage } from './run-page';
import { RunsPage } from './runs-page';
import { SchedulesPage } from './schedules-page';
import { ApiKeysPage } from './api-keys-page';
import { AccuracyPage } from './accuracy-page';
import { SignInPage } from './sign-in-page';

type AuthState = 'checking' | 'signed-in' | 'signed-out';

const TITLES: Record<Route['page'], string> = {
  runs: 'Runs',
  run: 'Run',
  files: 'Clean a file',
  check: 'Check an address',
  connections: 'Connections',
  schedules: 'Schedules',
  'api-keys': 'API keys',
  accuracy: 'Accuracy',
  'not-found': 'Not found',
};

/** One key per page and run: a new key remounts the page, which stops the old one's polling. */
const routeKey = (route: Route) => (route.page === 'run' ? `run:${route.id}` : route.page);

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'runs':
      return <RunsPage />;
    case 'run':
      return <RunPage id={route.id} />;
    case 'files':
      return <FilesPage />;
    case 'check':
      return <CheckPage />;
    case 'connections':
      return <ConnectionsPage query={route.query} />;
    case 'schedules':
      return <SchedulesPage />;
    case 'api-keys':
      return <ApiKeysPage />;
    case 'accuracy':
      return <AccuracyPage />;
    default:
      return (
        <>
          <h1 tabIndex={-1}>Page not found</h1>
          <p>
            There is no page at <code>{route.hash}</code>. Use the menu above.
          </p>
        </>
      );
  }
}

function App() {
  const route = useRoute();
  const [auth, setAuth] = useState<AuthState>('checking');
  const [startupError, setStartupError] = useState<string>();
  const [signedOutNotice, setSignedOutNotice] = useState<string>();
  const firstPage = useRef(true);
  // The registered platforms' labels, loaded once signed in, before the pages that name platforms show.
  const [platformsLoaded, setPlatformsLoaded] = useState(false);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setSignedOutNotice('Your session ended: sign in again.');
      setAuth('signed-out');
    });
    hasSession().then(
      (signedIn) => setAuth(signedIn ? 'signed-in' : 'signed-out'),
      (caught: unknown) => {
        setStartupError(errorMessage(caught));
        setAuth('signed-out');
      },
    );
  }, []);

  const key = routeKey(route);
  useEffect(() => {
    document.title = route.page === 'run' ? `Run ${route.id} · verify-hub` : `${TITLES[route.page]} · verify-hub`;
    // After a move between pages, focus goes to the new page's heading, as a page load would put it at the top.
    if (auth !== 'signed-in') return;
    if (firstPage.current) {
      firstPage.current = false;
      return;
    }
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [key, auth]);

  useEffect(() => {
    if (auth !== 'signed-in' || platformsLoaded) return;
    listPlatforms().then(
      (answer) => rememberPlatforms(answer.platforms),
      // Without the list, platforms are named by their ids: still usable.
      () => undefined,
    ).finally(() => setPlatformsLoaded(true));
  }, [auth, platformsLoaded]);

  if (auth === 'checking' || (auth === 'signed-in' && !platformsLoaded)) return <p class="loading">Loading…</p>;
  if (auth === 'signed-out') {
    return (
      <SignInPage
        notice={signedOutNotice}
        initialError={startupError}
        onSignedIn={() => {
          setStartupError(undefined);
          setSignedOutNotice(undefined);
          firstPage.current = true;
          setAuth('signed-in');
        }}
      />
    );
  }

  const leave = async () => {
    try {
      await signOut();
    } catch {
      // The session is dropped client-side either way; the server's expires on its own.
    }
    setSignedOutNotice(undefined);
    setAuth('signed-out');
  };

  // Every session and assistant sign-in of the hub ends (`verify-hub sessions revoke --all`): asked first.
  const leaveEverywhere = async () => {
    const question = 'Sign out everywhere? Every dashboard session (this one too) and every AI assistant signed in to this hub will have to sign in again. The admin token stays the same.';
    if (!window.confirm(question)) return;
    try {
      await signOutEverywhere();
    } catch (caught) {
      window.alert(`Could not sign out everywhere: ${errorMessage(caught)}`);
      return;
    }
    setSignedOutNotice('Every dashboard session and AI-assistant sign-in of this hub has ended: sign in again.');
    setAuth('signed-out');
  };

  return (
    <>
      <Nav route={route} onSignOut={() => void leave()} onSignOutEverywhere={() => void leaveEverywhere()} />
      <main id="content" tabIndex={-1}>
        <Page key={key} route={route} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
