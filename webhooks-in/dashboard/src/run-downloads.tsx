import { useEffect, useState } from 'preact/hooks';
import { errorMessage, getDownloads } from './api';
import type { CategoryDownload, RunDownloads } from './api-types';
import { ErrorAlert } from './error-alert';
import { formatNumber } from './format';

/**
 * A completed file run's downloads, first on its page: the cleaned list, then one row per category of
 * the ledger and per flag with its count (the rows its files hold) and its CSV and Excel links. A list
 * without rows is shown without links.
 */
export function FileDownloads({ id }: { id: string }) {
  const [downloads, setDownloads] = useState<RunDownloads>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    const abort = new AbortController();
    getDownloads(id, abort.signal).then(setDownloads, (caught: unknown) => {
      if (!abort.signal.aborted) setError(errorMessage(caught));
    });
    return () => abort.abort();
  }, [id]);

  return (
    <section class="downloads file-downloads" aria-labelledby="downloads-heading">
      <h2 id="downloads-heading">Downloads</h2>
      <ErrorAlert message={error} />
      {!downloads && !error && <p class="muted">Loading the downloads…</p>}
      {downloads && (
        <>
          <h3>Cleaned list</h3>
          <ul>
            <li>
              <a href={downloads.cleaned.href} download>
                Download cleaned file
              </a>{' '}
              <span class="muted">({rows(downloads.cleaned.count)}: every row except the {removedWords(downloads.removed.risks)} ones)</span>
            </li>
            <li>
              <a href={downloads.removed.href} download>
                Download removed rows
              </a>{' '}
              <span class="muted">({rows(downloads.removed.count)}: the {removedWords(downloads.removed.risks)} ones)</span>
            </li>
            <li>
              <a href={downloads.summary.href} download>
                Download summary
              </a>
            </li>
          </ul>
          <DownloadTable caption="By category (every row in exactly one)" testId="downloads-categories" items={downloads.categories} />
          <DownloadTable caption="By flag (a row may have several, and is also in its category)" testId="downloads-flags" items={downloads.flags} />
        </>
      )}
    </section>
  );
}

function DownloadTable({ caption, testId, items }: { caption: string; testId: string; items: CategoryDownload[] }) {
  return (
    <div class="table-wrap">
      <table data-testid={testId}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">List</th>
            <th scope="col" class="num">
              Rows
            </th>
            <th scope="col">Download</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.category} data-category={item.category}>
              <th scope="row" title={item.explanation}>
                {item.label}
              </th>
              <td class="num">{formatNumber(item.count)}</td>
              <td>
                {item.csv ? (
                  <>
                    <a href={item.csv} download aria-label={`Download ${item.label} rows as CSV`}>
                      CSV
                    </a>
                    {item.xlsx && (
                      <>
                        {' | '}
                        <a href={item.xlsx} download aria-label={`Download ${item.label} rows as Excel`}>
                          Excel
                        </a>
                      </>
                    )}
                  </>
                ) : (
                  <span class="muted">no rows</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "invalid", "invalid and risky": the risks the user chose to remove when the run started. */
const removedWords = (risks: string[] | undefined) => (risks?.length ? risks.join(' and ') : 'removed');

const rows = (n: number) => `${formatNumber(n)} ${n === 1 ? 'row' : 'rows'}`;
