import { InputError } from '@verify-hub/core';
import type { Bundle, ZObject } from 'zapier-platform-core';
import { zapierEngineVerifier } from '../engine-verifier';
import { SINGLE_VERIFICATION_THROTTLE } from '../throttle';
import { SAMPLE_VERIFICATION, toOutput, verificationOutputFields, type VerificationOutput } from '../verification-output';
import { withZapierErrors } from '../zapier-errors';

/** Zapier stops a step at 30 s; one verification keeps well inside it. */
export const SINGLE_STEP_BUDGET_MS = 25_000;

export const emailInputField = {
  key: 'email',
  label: 'Email Address',
  type: 'string' as const,
  required: true,
  helpText: 'The email address to verify, for example jane@example.com. Spaces around it are ignored.',
};

/** Verifies the address in `bundle.inputData.email`; shared by the create and the search. */
export async function verifyEmailInput(z: ZObject, bundle: Bundle): Promise<VerificationOutput> {
  return withZapierErrors(z, async () => {
    const email = bundle.inputData.email;
    if (typeof email !== 'string' || email.trim() === '') throw new InputError('Email Address', 'is empty: map a field that holds an email address');
    const verifier = zapierEngineVerifier(z, bundle, { deadline: Date.now() + SINGLE_STEP_BUDGET_MS });
    return toOutput(await verifier.verify(email.trim()));
  });
}

export const verifyEmail = {
  key: 'verify_email',
  noun: 'Email Verification',
  display: {
    label: 'Verify Email Address',
    description: 'Checks whether an email address is safe to send to, with score, risk, reason and every check.',
  },
  operation: {
    inputFields: [emailInputField],
    perform: verifyEmailInput,
    throttle: SINGLE_VERIFICATION_THROTTLE,
    outputFields: verificationOutputFields(),
    sample: SAMPLE_VERIFICATION,
  },
};
