import { EngineClient, HOSTED_ENGINE_URL, type Verifier } from '@verify-hub/core';

/** Builds the `Verifier` that serves one caller, from the key that caller sent. */
export type VerifierFactory = (apiKey: string) => Verifier;

export interface McpToolOptions {
  /** Addresses `verify_emails` checks at once (default 5). */
  concurrency?: number;
  /**
   * Longest engine rate-limit wait a tool call sits through before answering with a rate-limit
   * error (default 10 s): assistants time a tool call out after about a minute.
   */
  maxRateLimitWaitMs?: number;
}

export interface McpConnectorOptions extends McpToolOptions {
  /** Where the per-caller `EngineClient` points (default the hosted engine). Ignored with `verifierFor`. */
  engineUrl?: string;
  /** Replaces the default `EngineClient` per caller: tests, or a hub that verifies in-process. */
  verifierFor?: VerifierFactory;
}

export const TOOL_DEFAULTS = { concurrency: 5, maxRateLimitWaitMs: 10_000 } as const;

/** The caller's key goes to the engine unchanged, so billing and limits are the API's own. */
export function resolveVerifierFactory(options: McpConnectorOptions): VerifierFactory {
  if (options.verifierFor) return options.verifierFor;
  const baseUrl = options.engineUrl ?? HOSTED_ENGINE_URL;
  // Validate the URL once, at start-up, rather than on every request.
  new EngineClient({ baseUrl, apiKey: 'probe' });
  return (apiKey) => new EngineClient({ baseUrl, apiKey, userAgent: 'verify-hub-mcp' });
}
