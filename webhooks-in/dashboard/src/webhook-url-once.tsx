import { useRef, useState } from 'preact/hooks';
import { copyText } from './copy-text';
import { platformCard, platformName } from './format';

/**
 * A webhook address holding its secret (Mailchimp's), to add by hand: the hub hands it over once, right
 * after connecting, with why the hub could not register it itself (`problem`) when it tried.
 */
export function WebhookUrlOnce({ url, label, platform, problem, onDone }: { url: string; label: string; platform: string; problem?: string; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string>();

  const copy = async () => setCopied(await copyText(url, field.current));

  return (
    <section class="webhook-once" aria-labelledby="webhook-once-heading">
      <h2 id="webhook-once-heading">
        One more step in {platformName(platform)} for {label}
      </h2>
      {problem && <p role="alert">{problem.replace(/\.?$/, '.')}</p>}
      <p>
        {platformCard(platform)?.webhookHelp ?? `In ${platformName(platform)}, add this address as a webhook so new and changed contacts are verified as they arrive.`} It
        contains a secret: it is shown only this once (a new one can be made from the connection's card, and then this one stops working).
      </p>
      <div class="copy-row">
        <label for="webhook-url">Webhook URL</label>
        <input id="webhook-url" data-testid="webhook-url" ref={field} type="text" readOnly value={url} onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p role="status" class="small">
        {copied}
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
