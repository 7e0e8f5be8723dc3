import { AuthError, RateLimitError, TransientError, VerifyHubError, changedValues, type ContactResult, type WriteFailure, type WriteOptions, type WriteReport } from '@verify-hub/core';
import type { PipedriveApi } from './api';
import { isSecondary, personIdOf, personPatch, verdictValues } from './mapping';
import type { FieldKeys } from './settings';

/** PATCHes under way at once within one write call; the shared limiter keeps them inside the burst window. */
export const WRITE_CONCURRENCY = 10;

/**
 * Writes a batch of verdicts, one PATCH per person (Pipedrive has no bulk update), only the changed
 * fields, a few at a time. A failure of the call itself (rate window, quota, refused token, 5xx)
 * stops the batch: the PATCHes under way finish, and the error goes to the host, which tries the
 * batch once more. The persons already written in the failed attempt are remembered with their
 * values, so the second attempt does not send them again: each verdict is written once.
 */
export class PersonWriter {
  /** Person id -> the patch sent in an attempt that then failed, until the batch goes through. */
  private readonly sentBeforeFailure = new Map<string, string>();

  constructor(
    private readonly api: PipedriveApi,
    private readonly keysOf: () => Promise<FieldKeys>,
  ) {}

  async write(results: ContactResult[], options: WriteOptions): Promise<WriteReport> {
    const report: WriteReport = { written: 0, unchanged: [], failed: [] };
    const keys = await this.keysOf();
    const todo: { result: ContactResult; patch: ReturnType<typeof personPatch>; signature: string }[] = [];
    for (const result of results) {
      const { contact, verification } = result;
      const changed = isSecondary(contact.id) ? {} : changedValues(contact.current, verdictValues(verification));
      if (Object.keys(changed).length === 0) {
        // A secondary address is verified, not written: the person's fields hold its primary's verdict.
        report.unchanged.push(contact.id);
        continue;
      }
      const patch = personPatch(changed, keys);
      todo.push({ result, patch, signature: JSON.stringify(patch) });
    }
    if (options.dryRun) return { ...report, written: todo.length };

    let stop: unknown;
    const queue = [...todo];
    const worker = async () => {
      for (let item = queue.shift(); item && stop === undefined; item = queue.shift()) {
        const { contact } = item.result;
        if (this.sentBeforeFailure.get(contact.id) === item.signature) {
          report.written++;
          continue;
        }
        try {
          await this.api.updatePerson(personIdOf(contact.id), item.patch);
          this.sentBeforeFailure.set(contact.id, item.signature);
          report.written++;
        } catch (error) {
          const failure = recordFailure(error, item.result);
          if (failure) report.failed.push(failure);
          else stop ??= error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, todo.length) }, worker));
    if (stop !== undefined) throw stop;
    for (const { result } of todo) this.sentBeforeFailure.delete(result.contact.id);
    return report;
  }
}

/**
 * A failure of one person, not of the call: the person is gone (404) or Pipedrive refused its values
 * (400). Anything of core's kinds (limits, credentials, 5xx) concerns the whole batch: undefined.
 */
function recordFailure(error: unknown, { contact }: ContactResult): WriteFailure | undefined {
  const ofTheCall = error instanceof AuthError || error instanceof RateLimitError || error instanceof TransientError;
  if (ofTheCall || !(error instanceof VerifyHubError)) return undefined;
  if (error.status !== 404 && error.status !== 400 && error.status !== 410) return undefined;
  return { contactId: contact.id, email: contact.email, reason: error.message, retryable: false };
}
