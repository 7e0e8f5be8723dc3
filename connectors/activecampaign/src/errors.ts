import { VerifyHubError, platformErrorKinds, type ErrorDetails } from '@verify-hub/core';

/**
 * ActiveCampaign's failures as core's kinds, which the host acts on: an AuthError pauses a run until the
 * platform is reconnected (and a connect form answers "refused"), a RateLimitError waits, a
 * TransientError (5xx, no answer) is tried once more.
 */
export const ActivecampaignErrors = platformErrorKinds('activecampaign');

/** ActiveCampaign refused a request for what it says (400, 422): its own words, never the token. */
export class ActivecampaignRequestError extends VerifyHubError {
  override readonly code: string = 'ACTIVECAMPAIGN_REFUSED';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** 404: the contact, tag or webhook is not (or no longer) there. */
export class ActivecampaignNotFoundError extends ActivecampaignRequestError {
  override readonly code: string = 'ACTIVECAMPAIGN_NOT_FOUND';
}
