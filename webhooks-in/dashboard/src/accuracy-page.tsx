import { useEffect, useState } from 'preact/hooks';
import { getAccuracy, readBounces } from './api';
import type { AccuracyAnswer, AccuracyReason, AccuracyReport, AccuracyVerdict, DeliveryCounts } from './api-types';
import { AccuracyChart, percent } from './accuracy-chart';
import { ErrorAlert, Notice } from './error-alert';
import { formatDateTime, formatNumber, platformName } from './format';

const WINDOWS = [30, 90];
const VERDICT_LABELS: Record<AccuracyVerdict, string> = { safe: 'Safe', risky: 'Risky', unknown: 'Unknown', invalid: 'Invalid', not_verified: 'Not verified by the hub' };
const REASON_LABELS: Record<AccuracyReason, string> = { catch_all: 'catch-all domain', accept_all: 'accept-all provider', role: 'role address', disposable: 'disposable', other: 'other reasons' };
const SPLIT: AccuracyReason[] = ['catch_all', 'accept_all', 'role', 'disposable', 'other'];

function Row({ label, counts, id, sub }: { label: string; counts: DeliveryCounts; id: string; sub?: boolean }) {
  return (
    <tr class={sub ? 'sub' : undefined} data-testid={`accuracy-${id}`}>
      <th scope="row">{label}</th>
      <td class="num">{formatNumber(counts.sent)}</td>
      <td class="num">{formatNumber(counts.hardBounced)}</td>
      <td class="num">{percent(counts.hardBounced, counts.sent)}</td>
      <td class="num">{formatNumber(counts.softBounced)}</td>
      <td class="num">{formatNumber(counts.policy)}</td>
    </tr>
  );
}

function ReportTable({ report, caption }: { report: AccuracyReport; caption: string }) {
  const invalid = report.verdicts.find((v) => v.verdict === 'invalid');
  return (
    <>
      <div class="table-wrap">
        <table class="accuracy">
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Verdict held when sent</th>
              <th scope="col" class="num">Sent</th>
              <th scope="col" class="num">Hard-bounced</th>
              <th scope="col" class="num">Hard-bounce rate</th>
              <th scope="col" class="num">Soft-bounced</th>
              <th scope="col" class="num">Policy (apart)</th>
            </tr>
          </thead>
          <tbody>
            {report.verdicts.map((v) => [
              <Row key={v.verdict} label={VERDICT_LABELS[v.verdict]} counts={v} id={v.verdict} />,
              ...SPLIT.filter((r) => (v.byReason?.[r]?.sent ?? 0) > 0).map((r) => <Row key={`${v.verdict}-${r}`} label={`… ${REASON_LABELS[r]}`} counts={v.byReason![r]} id={`${v.verdict}-${r}`} sub />),
            ])}
          </tbody>
        </table>
      </div>
      <p data-testid="accuracy-invalid-sent">
        Called invalid but sent anyway: {formatNumber(invalid?.sent ?? 0)}; of those, did not bounce: {formatNumber(invalid?.notBounced ?? 0)}.
      </p>
      <p data-testid="accuracy-corrected">Verdicts corrected to invalid by a hard bounce: {formatNumber(report.corrected)}.</p>
    </>
  );
}

/**
 * How the verdicts held up on the customer's own sends: the platforms' bounces joined to the verdict
 * held for each address when it was sent to, over the last 30 or 90 days, for every connection or one.
 */
export function AccuracyPage() {
  const [days, setDays] = useState(30);
  const [connection, setConnection] = useState('');
  const [answer, setAnswer] = useState<AccuracyAnswer>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [connections, setConnections] = useState<{ id: string; name: string }[]>([]);

  const load = async (signal?: AbortSignal) => {
    try {
      const found = await getAccuracy(days, connection || undefined, signal);
      if (signal?.aborted) return;
      setAnswer(found);
      setError(undefined);
      if (!connection) setConnections(found.connections.map((c) => ({ id: c.connectionId, name: `${c.label ?? c.connectionId} (${platformName(c.platform)})` })));
    } catch (caught) {
      if (!signal?.aborted) setError((caught as Error).message);
    }
  };

  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, [days, connection]);

  const readNow = async () => {
    if (busy) return;
    setBusy(true);
    setNotice(undefined);
    try {
      await readBounces();
      await load();
      setNotice('Bounces read from the platforms.');
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const report = connection ? answer?.connections.find((c) => c.connectionId === connection) : answer?.overall;
  const chosen = connections.find((c) => c.id === connection)?.name;
  return (
    <>
      <h1 tabIndex={-1}>Accuracy</h1>
      <p>
        What your own sends said about the verdicts: of the addresses verify-hub called safe, risky or unknown that your email platform sent to, how many bounced. A hard
        bounce of the mailbox proves the verdict wrong and replaces it with invalid; a soft bounce (a full mailbox, a server down) only shows; a refusal for the sender's
        reputation or content, or an abuse report, says nothing of the mailbox and is counted apart.
      </p>
      <div class="filters">
        <label>
          Window{' '}
          <select value={String(days)} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
            {WINDOWS.map((d) => (
              <option key={d} value={String(d)}>
                Last {d} days
              </option>
            ))}
          </select>
        </label>{' '}
        <label>
          Connection{' '}
          <select value={connection} onChange={(e) => setConnection((e.target as HTMLSelectElement).value)}>
            <option value="">All connections</option>
            {connections.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="button" class="secondary" onClick={() => void readNow()} disabled={busy}>
          Read bounces now
        </button>
      </div>
      <ErrorAlert message={error} />
      <Notice message={notice} />
      {report && (
        <section aria-labelledby="accuracy-figures">
          <h2 id="accuracy-figures">
            {chosen ?? 'All connections'}: last {report.days} days
          </h2>
          <p class="muted">
            Since {formatDateTime(report.since)}. Each address counts once per connection, under the verdict held for it when it was sent to.
          </p>
          <AccuracyChart verdicts={report.verdicts} />
          <ReportTable report={report} caption={`Sends and bounces by verdict (${chosen ?? 'all connections'})`} />
        </section>
      )}
      {answer && answer.connections.length === 0 && <p>No bounce data yet: the workers read the platforms every 15 minutes, or use Read bounces now.</p>}
    </>
  );
}
