import { useRef, useState } from 'preact/hooks';
import { copyText } from './copy-text';
import { platformCard, platformName } from './format';
import type { WebhookRequest } from './api-types';

/** One value to copy into the platform: a read-only field (or area, for a body) and its Copy button. */
function CopyRow({ id, label, value, multiline, onCopied }: { id: string; label: string; value: string; multiline?: boolean; onCopied: (words: string) => void }) {
  const field = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const select = (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => event.currentTarget.select();
  return (
    <div class="copy-row">
      <label for={id}>{label}</label>
      {multiline ? (
        <textarea id={id} data-testid={id} ref={field} readOnly rows={3} value={value} onFocus={select} />
      ) : (
        <input id={id} data-testid={id} ref={field} type="text" readOnly value={value} onFocus={select} />
      )}
      <button type="button" aria-label={`Copy ${label}`} onClick={() => void copyText(value, field.current).then(onCopied)}>
        Copy
      </button>
    </div>
  );
}

/**
 * A webhook address holding its secret (Mailchimp's), or an address with a header holding it and a body
 * to send (Klaviyo's flow webhook: `request`), to add by hand: the hub hands them over once, right after
 * connecting, with why the hub could not register it itself (`problem`) when it tried.
 */
export function WebhookUrlOnce({ url, request, label, platform, problem, onDone }: { url: string; request?: WebhookRequest; label: string; platform: string; problem?: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string>();
  const headers = Object.entries(request?.headers ?? {});

  return (
    <section class="webhook-once" aria-labelledby="webhook-once-heading">
      <h2 id="webhook-once-heading">
        One more step in {platformName(platform)} for {label}
      </h2>
      {problem && <p role="alert">{problem.replace(/\.?$/, '.')}</p>}
      <p>
        {platformCard(platform)?.webhookHelp ?? `In ${platformName(platform)}, add this address as a webhook so new and changed contacts are verified as they arrive.`}{' '}
        {headers.length > 0 ? 'The header holds a secret' : 'It contains a secret'}: it is shown only this once (a new one can be made from the connection's card, and then this one stops
        working).
      </p>
      <CopyRow id="webhook-url" label="Webhook URL" value={url} onCopied={setCopied} />
      {headers.map(([name, value], i) => (
        <CopyRow key={name} id={`webhook-header-${i}`} label={`Header ${name}`} value={value} onCopied={setCopied} />
      ))}
      {request?.body !== undefined && <CopyRow id="webhook-body" label="Body (JSON)" value={request.body} multiline onCopied={setCopied} />}
      <p role="status" class="small">
        {copied}
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
