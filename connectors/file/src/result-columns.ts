import { DEFAULT_HUBSPOT_PROPERTY_NAMES, toHubSpotProperties, type HubSpotPropertyNames, type Verification } from '@verify-hub/core';

/**
 * The result columns added to a cleaned file, in output order. Names and values come from core's
 * write-back mapping (the same `ev_*` names and formats HubSpot gets), so a file and a CRM agree.
 */
const RESULT_FIELDS: readonly (keyof HubSpotPropertyNames)[] = [
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

export const RESULT_COLUMNS: readonly string[] = RESULT_FIELDS.map((field) => DEFAULT_HUBSPOT_PROPERTY_NAMES[field]);

/** The result cells of a row, in `RESULT_COLUMNS` order. */
export function resultCells(verification: Verification): string[] {
  const values = toHubSpotProperties(verification);
  return RESULT_COLUMNS.map((name) => values[name] ?? '');
}

/** The result cells of a row that has no result (no email, or no result delivered). */
export function emptyResultCells(): string[] {
  return RESULT_COLUMNS.map(() => '');
}
