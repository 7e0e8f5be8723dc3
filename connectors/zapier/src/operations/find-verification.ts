import { RISKS } from '@verify-hub/core';
import type { Bundle, ZObject } from 'zapier-platform-core';
import { SINGLE_VERIFICATION_THROTTLE } from '../throttle';
import { SAMPLE_VERIFICATION, verificationOutputFields, type VerificationOutput } from '../verification-output';
import { emailInputField, verifyEmailInput } from './verify-email';

/** The risks a Zap asked for; empty means any. */
function wantedRisks(value: unknown): Set<string> {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  return new Set(items.map((x) => String(x).trim().toLowerCase()).filter((x) => x !== ''));
}

/**
 * The verification as a search: with "Only Risks" set, a result of another risk counts as "not
 * found", so a Zap can branch with "continue if nothing found" or search-or-create.
 */
export async function findVerification(z: ZObject, bundle: Bundle): Promise<VerificationOutput[]> {
  const wanted = wantedRisks(bundle.inputData.risks);
  for (const risk of wanted) {
    if (!(RISKS as readonly string[]).includes(risk)) {
      throw new z.errors.Error(`Only Risks: "${risk}" is not a risk; use safe, risky, invalid or unknown.`, 'INVALID_INPUT', 400);
    }
  }
  const result = await verifyEmailInput(z, bundle);
  return wanted.size === 0 || wanted.has(result.risk) ? [result] : [];
}

export const findEmailVerification = {
  key: 'find_email_verification',
  noun: 'Email Verification',
  display: {
    label: 'Find Email Verification',
    description: "Finds an email address's verification result; with Only Risks set, only a result of those risks counts as found, so the Zap can branch on it.",
  },
  operation: {
    inputFields: [
      emailInputField,
      {
        key: 'risks',
        label: 'Only Risks',
        type: 'string' as const,
        list: true,
        required: false,
        choices: { safe: 'Safe', risky: 'Risky', invalid: 'Invalid', unknown: 'Unknown (not billed)' },
        helpText: 'Count the address as found only with one of these risks. Leave empty to always return the result.',
      },
    ],
    perform: findVerification,
    throttle: SINGLE_VERIFICATION_THROTTLE,
    outputFields: verificationOutputFields(),
    sample: SAMPLE_VERIFICATION,
  },
};
