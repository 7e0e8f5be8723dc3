import { DEFAULT_VERIFICATION_FIELD_NAMES, suggestedAddress, verificationFieldValues, type Verification, type VerificationFieldNames } from '@verify-hub/core';

/**
 * The result columns added to a cleaned file, in output order. Names and values are core's neutral
 * verification fields (the same `ev_*` names and text a CRM's properties get), so a file and a CRM agree.
 */
const RESULT_FIELDS: readonly (keyof VerificationFieldNames)[] = [
  'risk',
  'score',
  'reason',
  'disposable',
  'roleAccount',
  'catchAll',
  'freeProvider',
  'spamTrapRisk',
  'checkedAt',
];

/**
 * The file's own column after them (no CRM property): the address the engine suggests when this one
 * looks like a typo (`did_you_mean`, checks.typoSuggestion; `someone@gmail.com` for `someone@gmial.com`),
 * empty when it suggests none. Last, so the columns before it keep their places.
 */
export const DID_YOU_MEAN_COLUMN = 'ev_did_you_mean';

export const RESULT_COLUMNS: readonly string[] = [...RESULT_FIELDS.map((field) => DEFAULT_VERIFICATION_FIELD_NAMES[field]), DID_YOU_MEAN_COLUMN];

/** The result cells of a row, in `RESULT_COLUMNS` order. */
export function resultCells(verification: Verification): string[] {
  const values: Record<string, string | null | undefined> = { ...verificationFieldValues(verification), [DID_YOU_MEAN_COLUMN]: suggestedAddress(verification) };
  return RESULT_COLUMNS.map((name) => values[name] ?? '');
}

/** The result cells of a row that has no result (no email, or no result delivered). */
export function emptyResultCells(): string[] {
  return RESULT_COLUMNS.map(() => '');
}
