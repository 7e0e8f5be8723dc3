import type { Route } from './router';

const LINKS: { href: string; label: string; pages: Route['page'][] }[] = [
  { href: '#/runs', label: 'Runs', pages: ['runs', 'run'] },
  { href: '#/files', label: 'Clean a file', pages: ['files'] },
  { href: '#/check', label: 'Check an address', pages: ['check'] },
  { href: '#/connections', label: 'Connections', pages: ['connections'] },
  { href: '#/schedules', label: 'Schedules', pages: ['schedules'] },
  { href: '#/accuracy', label: 'Accuracy', pages: ['accuracy'] },
  { href: '#/api-keys', label: 'API keys', pages: ['api-keys'] },
];

export function Nav({ route, onSignOut, onSignOutEverywhere }: { route: Route; onSignOut: () => void; onSignOutEverywhere: () => void }) {
  return (
    <header class="top">
      {/* The hash holds the route, so the skip link moves the focus itself instead of changing it. */}
      <a
        class="skip-link"
        href="#content"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('content')?.focus();
        }}
      >
        Skip to content
      </a>
      <span class="brand">verify-hub</span>
      <nav aria-label="Main">
        <ul>
          {LINKS.map((link) => (
            <li key={link.href}>
              <a href={link.href} aria-current={link.pages.includes(route.page) ? 'page' : undefined}>
                {link.label}
              </a>
            </li>
          ))}
        </ul>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
        <button type="button" class="secondary" onClick={onSignOutEverywhere}>
          Sign out everywhere
        </button>
      </nav>
    </header>
  );
}
