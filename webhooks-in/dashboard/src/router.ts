import { useEffect, useState } from 'preact/hooks';

/** The dashboard's pages, addressed by the URL's hash so the hub serves one document for all of them. */
export type Route =
  | { page: 'runs' }
  | { page: 'run'; id: string }
  | { page: 'files' }
  | { page: 'check' }
  | { page: 'connections'; query: URLSearchParams }
  | { page: 'schedules' }
  | { page: 'api-keys' }
  | { page: 'accuracy' }
  | { page: 'not-found'; hash: string };

export function parseHash(hash: string): Route {
  const [pathPart = '', queryPart = ''] = hash.replace(/^#/, '').split('?', 2);
  const parts = pathPart.split('/').filter(Boolean);
  const query = new URLSearchParams(queryPart);
  if (parts.length === 0) return { page: 'runs' };
  const [first, second] = parts;
  if (first === 'runs' && parts.length === 1) return { page: 'runs' };
  if (first === 'runs' && parts.length === 2 && second) return { page: 'run', id: safeDecode(second) };
  if (first === 'files' && parts.length === 1) return { page: 'files' };
  if (first === 'check' && parts.length === 1) return { page: 'check' };
  if (first === 'connections' && parts.length === 1) return { page: 'connections', query };
  if (first === 'schedules' && parts.length === 1) return { page: 'schedules' };
  if (first === 'api-keys' && parts.length === 1) return { page: 'api-keys' };
  if (first === 'accuracy' && parts.length === 1) return { page: 'accuracy' };
  return { page: 'not-found', hash };
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export const runHref = (id: string) => `#/runs/${encodeURIComponent(id)}`;

export function navigate(hash: string): void {
  window.location.hash = hash;
}

/** The current route, following `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  return route;
}
