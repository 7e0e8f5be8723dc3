import { useRef, useState } from 'preact/hooks';
import { discardUpload, errorMessage, estimateFile, previewFile, startFile } from './api';
import type { FilePreview, FileEstimate } from './api-types';
import { ErrorAlert } from './error-alert';
import { formatBytes, formatNumber } from './format';
import { navigate, runHref } from './router';

/** The hub's accepted types (webhooks-in's UPLOAD_EXTENSIONS); the hub checks again and has the last word. */
export const UPLOAD_EXTENSIONS = ['.csv', '.tsv', '.txt', '.xlsx'];

/** The hub's own words for a refused type, so both refusals read the same. */
export function unsupportedTypeMessage(fileName: string): string | undefined {
  const dot = fileName.lastIndexOf('.');
  const ext = dot > 0 ? fileName.slice(dot).toLowerCase() : '';
  if (UPLOAD_EXTENSIONS.includes(ext)) return undefined;
  return `file: unsupported type "${ext || '(none)'}": upload a CSV file (.csv, .tsv, .txt) or an Excel workbook (.xlsx)`;
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function FilesPage() {
  const [preview, setPreview] = useState<FilePreview>();
  const [column, setColumn] = useState('');
  const [estimate, setEstimate] = useState<FileEstimate>();
  const [estimating, setEstimating] = useState(false);
  const [removeRisky, setRemoveRisky] = useState(false);
  const [maxCredits, setMaxCredits] = useState('');
  const [uploading, setUploading] = useState<string>();
  const [starting, setStarting] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [error, setError] = useState<string>();
  const [errorField, setErrorField] = useState<string>();
  /** The user's "yes, this is the email column" when the hub warned that it does not look like one. */
  const [columnConfirmed, setColumnConfirmed] = useState(false);
  const estimateRequest = useRef(0);

  /**
   * Forgets the previewed file: another file replaces it, or a refused one must not leave the old
   * preview (and its "Start cleaning") behind. A failure to discard is harmless: the hub removes
   * previews nobody started after a day.
   */
  const clearPreview = () => {
    if (preview) discardUpload(preview.upload.id).catch(() => undefined);
    estimateRequest.current++; // an estimate still on its way belongs to the old file
    setPreview(undefined);
    setEstimate(undefined);
    setEstimating(false);
    setColumn('');
    setColumnConfirmed(false);
  };

  const fail = (caught: unknown) => {
    setError(errorMessage(caught));
    setErrorField((caught as { field?: string }).field);
  };

  const upload = async (files: FileList | null | undefined) => {
    const file = files?.[0];
    if (!file || uploading !== undefined || starting) return;
    setError(undefined);
    setErrorField(undefined);
    clearPreview();
    if (files.length > 1) {
      setError('Drop one file at a time.');
      setErrorField('file');
      return;
    }
    const refusal = unsupportedTypeMessage(file.name);
    if (refusal) {
      setError(refusal);
      setErrorField('file');
      return;
    }
    setUploading(file.name);
    try {
      const answer = await previewFile(file);
      setPreview(answer);
      setColumn(answer.upload.emailColumn ?? answer.upload.columns[0] ?? '');
      setEstimate(answer.estimate);
    } catch (caught) {
      fail(caught);
    } finally {
      setUploading(undefined);
    }
  };

  const chooseColumn = async (next: string) => {
    if (!preview) return;
    setColumn(next);
    setColumnConfirmed(false);
    setError(undefined);
    const request = ++estimateRequest.current;
    setEstimating(true);
    try {
      const answer = await estimateFile(preview.upload.id, next);
      if (request === estimateRequest.current) setEstimate(answer);
    } catch (caught) {
      if (request === estimateRequest.current) fail(caught);
    } finally {
      if (request === estimateRequest.current) setEstimating(false);
    }
  };

  const start = async (event: Event) => {
    event.preventDefault();
    if (!preview || starting || (estimate?.columnWarning && !columnConfirmed)) return;
    const cap = maxCredits.trim() === '' ? undefined : Number(maxCredits);
    if (cap !== undefined && (!Number.isInteger(cap) || cap < 1)) {
      setError('Credit limit: enter a whole number of credits, 1 or more, or leave it empty.');
      setErrorField('maxCredits');
      return;
    }
    setStarting(true);
    setError(undefined);
    try {
      const answer = await startFile(preview.upload.id, { column: column || undefined, removeRisky, maxCredits: cap });
      navigate(runHref(answer.run.id));
    } catch (caught) {
      fail(caught);
      setStarting(false);
    }
  };

  const upl = preview?.upload;

  return (
    <>
      <h1 tabIndex={-1}>Clean a file</h1>
      <p class="lead">
        Upload a contact list (CSV or Excel, up to 50,000 rows). You see what it would cost before anything is verified; then download the
        cleaned file and the removed rows.
      </p>
      <div
        class={`drop-zone${dragging ? ' dragging' : ''}`}
        onDragEnter={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragOver={(event) => {
          event.preventDefault();
          if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
        }}
        onDragLeave={(event) => {
          if (!(event.currentTarget as Node).contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          void upload(event.dataTransfer?.files);
        }}
      >
        <p class="drop-text">Drop a CSV or Excel file here</p>
        <p class="drop-or">or</p>
        <div class="field">
          <label for="file-input">Choose a file</label>
          <input
            id="file-input"
            type="file"
            accept=".csv,.tsv,.txt,.xlsx,text/csv,text/tab-separated-values,text/plain,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            aria-invalid={errorField === 'file' ? 'true' : undefined}
            aria-describedby={errorField === 'file' ? 'files-error' : undefined}
            onChange={(event) => {
              const input = event.currentTarget;
              void upload(input.files).finally(() => {
                input.value = ''; // choosing the same file again uploads it again
              });
            }}
          />
        </div>
        <p class="muted small">.csv, .tsv, .txt or .xlsx; the first row holds the column names.</p>
      </div>

      <div aria-live="polite" class="upload-status">
        {uploading && <p>Uploading {uploading}…</p>}
      </div>
      {/* A refused file is reported under the drop zone; a previewed file's errors (column, start) beside its controls. */}
      {(!upl || errorField === 'file') && <ErrorAlert id="files-error" message={error} />}

      {upl && preview && (
        <form class="file-preview" onSubmit={start}>
          <h2>{upl.name}</h2>
          <p class="muted">
            {formatBytes(upl.bytes)}, {formatNumber(upl.rows)} {upl.rows === 1 ? 'row' : 'rows'}, {upl.columns.length}{' '}
            {upl.columns.length === 1 ? 'column' : 'columns'}
          </p>
          <div class="table-wrap">
            <table class="preview">
              <caption>Preview</caption>
              <thead>
                <tr>
                  {upl.columns.map((name) => (
                    <th scope="col" key={name} class={name === column ? 'email-col' : undefined}>
                      {name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {upl.sample.map((row, i) => (
                  <tr key={i}>
                    {upl.columns.map((name) => (
                      <td key={name} class={name === column ? 'email-col' : undefined}>
                        {row[name] ?? ''}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>

          <div class="form-row">
            <div class="field">
              <label for="email-column">Email column</label>
              <select
                id="email-column"
                value={column}
                aria-invalid={errorField === 'column' ? 'true' : undefined}
                onChange={(event) => void chooseColumn(event.currentTarget.value)}
              >
                {upl.columns.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="max-credits">Credit limit (optional)</label>
              <input
                id="max-credits"
                type="number"
                min={1}
                step={1}
                inputMode="numeric"
                value={maxCredits}
                aria-invalid={errorField === 'maxCredits' ? 'true' : undefined}
                onInput={(event) => setMaxCredits(event.currentTarget.value)}
              />
            </div>
          </div>

          {estimate && (
            <p data-testid="estimate" class="estimate" aria-live="polite" aria-busy={estimating ? 'true' : undefined}>
              {/* The hub's words (core's cost.ts), so the dashboard and the CLI say the same: a ceiling, with money when priced. */}
              <strong>{estimate.cost.text}.</strong>{' '}
              <span class="muted">
                ({formatNumber(estimate.unique)} unique {estimate.unique === 1 ? 'address' : 'addresses'}, {formatNumber(estimate.cached)} already
                checked recently)
              </span>
            </p>
          )}

          {estimate?.columnWarning && !estimating && (
            <div class="column-warning" role="alert" data-testid="column-warning">
              <p>
                <strong>Check the email column:</strong> {capitalize(estimate.columnWarning.message)}
              </p>
              {estimate.columnWarning.suggestedColumn && (
                <button type="button" class="secondary" onClick={() => void chooseColumn(estimate.columnWarning!.suggestedColumn!)}>
                  Use column “{estimate.columnWarning.suggestedColumn}”
                </button>
              )}
              <div class="field checkbox">
                <input id="confirm-column" type="checkbox" checked={columnConfirmed} onChange={(event) => setColumnConfirmed(event.currentTarget.checked)} />
                <label for="confirm-column">“{estimate.columnWarning.column}” is the email column: clean with it anyway</label>
              </div>
            </div>
          )}

          {errorField !== 'file' && <ErrorAlert id="files-error" message={error} />}

          <div class="field checkbox">
            <input id="remove-risky" type="checkbox" checked={removeRisky} onChange={(event) => setRemoveRisky(event.currentTarget.checked)} />
            <label for="remove-risky">Also remove risky addresses</label>
          </div>
          <p class="muted small">Invalid addresses are always removed. Risky ones (catch-all domains, role addresses…) stay unless you tick this.</p>

          <button type="submit" aria-busy={starting ? 'true' : undefined} disabled={Boolean(estimate?.columnWarning) && !columnConfirmed}>
            Start cleaning
          </button>
        </form>
      )}
    </>
  );
}
