import { VerifyHubError, platformErrorKinds } from '@verify-hub/core';

/**
 * Brevo's failures as core's kinds, which the host acts on: an AuthError pauses a run until the
 * platform is reconnected (and a connect form answers "refused"), a RateLimitError waits, a
 * TransientError (5xx, no answer) is tried once more.
 */
export const BrevoErrors = platformErrorKinds('brevo');

/** Brevo answered 404: the contact, list or webhook is not (or no longer) there. Callers decide what that means. */
export class BrevoNotFoundError extends VerifyHubError {
  override readonly code: string = 'BREVO_NOT_FOUND';
}

/** What the reconnect advice says, in every refusal of the key. */
export const RECONNECT_WORDS = 'create a new API key in Brevo (Settings > SMTP & API > API keys) and reconnect Brevo (`verify-hub brevo connect`, or Connections in the dashboard)';
