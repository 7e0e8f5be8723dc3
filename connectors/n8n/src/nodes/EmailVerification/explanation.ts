import { explainInWords, type Verification } from '@verify-hub/core';

/**
 * The sentence each output item carries as `explanation`, so a workflow (or an AI agent using the node
 * as a tool) can read the verdict without knowing the reason codes (core's explainInWords).
 */
export function explain(v: Verification): string {
  return explainInWords(v, { retryHint: 'for example with a Wait node' });
}
