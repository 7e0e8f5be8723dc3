import { useEffect, useState } from 'preact/hooks';
import { deleteConnection, ensureSchema, errorMessage, listConnections, renewWebhookUrl, startRun } from './api';
import type { ConnectionSaved, ConnectionsAnswer, ConnectionView, SchemaReport, WebhookRegistrationView, WebhookRequest } from './api-types';
import { ConnectForm } from './connect-form';
import { ErrorAlert, Notice } from './error-alert';
import { formatDateTime, formatRelative, platformName } from './format';
import { useAction } from './use-action';
import { navigate, runHref } from './router';
import { SchemaReportView } from './schema-report';
import { WebhookUrlOnce } from './webhook-url-once';

const AUTH_TEXT: Record<ConnectionView['auth'], string> = { oauth: 'signed in with OAuth', token: 'private app token', api_key: 'API key' };

/** "2 schedules removed", or nothing for none. */

/** Uploaded files are stored as connections too (`file-<id>`); they belong to their run, not on this page. */
export const isPlatformConnection = (connection: ConnectionView) => connection.platform !== 'file';

/** What the hub did with a connection's webhook when it registers it itself: words for the notice. */
function registeredWords(platform: string, webhook: WebhookRegistrationView | undefined): string {
  return webhook?.registered ? ` The hub registered its webhook in ${platformName(platform)}: new and changed contacts are verified as they arrive.` : '';
}

export function ConnectionsPage({ query }: { query: URLSearchParams }) {
  const [data, setData] = useState<ConnectionsAnswer>();
  const [error, setError] = useState<string | undefined>(() => query.get('error') ?? undefined);
  const [notice, setNotice] = useState<string>();
  const [openForm, setOpenForm] = useState<string>();
  const [webhook, setWebhook] = useState<{ url: string; request?: WebhookRequest; label: string; platform: string; problem?: string }>();
  const [reports, setReports] = useState<Record<string, SchemaReport>>({});
  const { busy, perform } = useAction<string>((caught) => setError(errorMessage(caught)));

  const load = async (signal?: AbortSignal) => {
    try {
      const answer = await listConnections(signal);
      if (signal?.aborted) return;
      setData(answer);
      const connected = query.get('connected');
      if (connected) {
        const connection = answer.connections.find((c) => c.id === connected);
        // The callback says whether the hub registered the webhook (`webhook=registered`) or why not.
        const webhook = query.get('webhook');
        const platform = connection?.platform ?? '';
        const webhookHint =
          webhook === 'registered'
            ? registeredWords(platform, { registered: true })
            : connection && answer.platforms[platform]?.webhookUrl
              ? ` ${webhook ? `${webhook}. ` : ''}To verify new contacts as they arrive, choose "New webhook URL" on its card and paste it into ${platformName(platform)}.`
              : '';
        setNotice(`Connected ${connection?.label ?? connected}.${webhookHint}`);
      }
    } catch (caught) {
      if (!signal?.aborted) setError(errorMessage(caught));
    }
  };

  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    // The OAuth callback's outcome is shown once: a reload of the page should not repeat it.
    if (query.has('connected') || query.has('error')) history.replaceState(null, '', '#/connections');
    return () => controller.abort();
  }, []);

  const saved = (answer: ConnectionSaved) => {
    setOpenForm(undefined);
    setError(undefined);
    setNotice(`Connected ${answer.connection.label}.${registeredWords(answer.connection.platform, answer.webhook)}`);
    if (answer.webhookUrl && !answer.webhook?.registered) setWebhook({ url: answer.webhookUrl, request: answer.webhookRequest, label: answer.connection.label, platform: answer.connection.platform, problem: answer.webhook?.problem });
    void load();
  };

  const act = (connection: ConnectionView, action: 'schema' | 'sync' | 'webhook' | 'delete') =>
    perform(`${action}:${connection.id}`, async () => {
      setError(undefined);
      setNotice(undefined);
      if (action === 'schema') {
        const report = await ensureSchema(connection.id);
        setReports((current) => ({ ...current, [connection.id]: report }));
      } else if (action === 'webhook') {
        const { webhookUrl, webhookRequest, webhook } = await renewWebhookUrl(connection.id);
        if (webhook?.registered) setNotice(`New webhook address for ${connection.label}.${registeredWords(connection.platform, webhook)}`);
        else setWebhook({ url: webhookUrl, request: webhookRequest, label: connection.label, platform: connection.platform, problem: webhook?.problem });
      } else if (action === 'sync') {
        const run = await startRun({ platform: connection.platform, connectionId: connection.id, scope: 'all' });
        navigate(runHref(run.id));
      } else {
        const { summary } = await deleteConnection(connection.id);
        setNotice(`Disconnected ${connection.label}. ${summary}`);
        await load();
      }
    });

  const connections = data?.connections.filter(isPlatformConnection) ?? [];
  // The platforms that can be connected here, in the server's order (its registered modules).
  const platforms = Object.keys(data?.platforms ?? {});

  return (
    <>
      <h1 tabIndex={-1}>Connections</h1>
      <ErrorAlert message={error} />
      <Notice message={notice} />
      {webhook && <WebhookUrlOnce url={webhook.url} request={webhook.request} label={webhook.label} platform={webhook.platform} problem={webhook.problem} onDone={() => setWebhook(undefined)} />}

      {data && platforms.length > 0 && (
        <div class="actions">
          {platforms.map((platform) => (
            <button
              key={platform}
              type="button"
              aria-expanded={openForm === platform}
              aria-controls={openForm === platform ? `connect-${platform}` : undefined}
              onClick={() => setOpenForm(openForm === platform ? undefined : platform)}
            >
              Connect {platformName(platform)}
            </button>
          ))}
        </div>
      )}
      {openForm && data?.platforms[openForm] && (
        <div id={`connect-${openForm}`}>
          <ConnectForm key={openForm} platform={openForm} info={data.platforms[openForm]!} onSaved={saved} onClose={() => setOpenForm(undefined)} />
        </div>
      )}

      {!data && !error && <p class="muted">Loading connections…</p>}
      {data && connections.length === 0 && <p>No connections yet: connect {platforms.map(platformName).join(' or ') || 'a platform'} to verify their contacts.</p>}
      <div class="cards">
        {connections.map((connection) => (
          <article key={connection.id} class="card" aria-label={connection.label}>
            <h2>{connection.label}</h2>
            <p class="muted small">
              {platformName(connection.platform)} · {AUTH_TEXT[connection.auth] ?? connection.auth} · added{' '}
              <time dateTime={connection.createdAt} title={formatDateTime(connection.createdAt)}>
                {formatRelative(connection.createdAt)}
              </time>
            </p>
            <p class={`state state-${connection.state}`}>
              State: <strong>{connection.state.replace('_', ' ')}</strong>
              {connection.state === 'token_expiring' && connection.expiresAt && <> (expires {formatRelative(connection.expiresAt)}; sign in again)</>}
              {connection.stateReason && <> — {connection.stateReason}</>}
            </p>
            {Object.keys(connection.details).length > 0 && (
              <ul class="facts small">
                {Object.entries(connection.details).map(([key, value]) => (
                  <li key={key}>
                    {key}: {value}
                  </li>
                ))}
              </ul>
            )}
            <div class="actions">
              <button type="button" aria-busy={busy === `schema:${connection.id}` ? 'true' : undefined} onClick={() => void act(connection, 'schema')}>
                Set up fields
              </button>
              <button type="button" aria-busy={busy === `sync:${connection.id}` ? 'true' : undefined} onClick={() => void act(connection, 'sync')}>
                Start sync
              </button>
              {data?.platforms[connection.platform]?.webhookUrl && (
                <button
                  type="button"
                  class="secondary"
                  title="A new address for the platform's webhook: the one given before stops working"
                  aria-busy={busy === `webhook:${connection.id}` ? 'true' : undefined}
                  onClick={() => void act(connection, 'webhook')}
                >
                  New webhook URL
                </button>
              )}
              <button type="button" class="danger" aria-busy={busy === `delete:${connection.id}` ? 'true' : undefined} onClick={() => void act(connection, 'delete')}>
                Delete
              </button>
            </div>
            {reports[connection.id] && <SchemaReportView report={reports[connection.id]!} />}
          </article>
        ))}
      </div>
    </>
  );
}
