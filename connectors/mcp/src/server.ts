import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Verifier } from '@verify-hub/core';
import { ExplainInputSchema, PortableResultSchema } from './portable';
import { ExplanationSchema, explainResult, explanationText } from './explain';
import type { McpToolOptions } from './options';
import { toolError } from './tool-errors';
import { MAX_BATCH, VerifyEmailInput, VerifyEmailsInput, VerifyEmailsOutput, verifyEmailTool, verifyEmailsTool } from './verify-tools';

export const SERVER_NAME = 'verify-hub';
export const SERVER_VERSION = '0.1.0';

const INSTRUCTIONS =
  'Email verification by verify-hub. verify_email checks one address; verify_emails checks up to ' +
  `${MAX_BATCH} at once; explain_result turns a result into a plain-language recommendation. Each result ` +
  'has a risk: safe (send), risky (may bounce or go unread), invalid (do not send) or unknown (no verdict, ' +
  'try later). Every safe, risky or invalid result uses one credit of the API key; unknown results are free. ' +
  'Errors start with a code (UNAUTHORIZED, QUOTA_EXCEEDED, RATE_LIMITED, ...) and say what to do next.';

/**
 * The verify tools change nothing the user owns (no list, contact or file), so they are read-only; they
 * reach out to mail servers on the internet (open world); and they are not idempotent in billing terms:
 * calling again with the same address verifies it again and uses another credit (no cache on this path).
 */
export const VERIFY_ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true } as const;

export interface VerifyHubMcpServerOptions extends McpToolOptions {
  /** The engine access of the caller this server instance serves. */
  verifier: Verifier;
}

/** One MCP server with the three tools, bound to one caller's `Verifier`. */
export function createVerifyHubMcpServer(options: VerifyHubMcpServerOptions): McpServer {
  const { verifier } = options;
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });

  server.registerTool(
    'verify_email',
    {
      title: 'Verify an email address',
      description:
        'Checks whether one email address can receive mail: syntax, domain mail servers, the mailbox itself, and ' +
        'whether it is disposable, a role account, a catch-all domain or a spam trap. Returns the result with ' +
        'risk (safe, risky, invalid, unknown), a 0-100 score, a reason code and the individual checks. Uses one ' +
        'credit unless the risk is unknown.',
      inputSchema: VerifyEmailInput,
      outputSchema: PortableResultSchema,
      annotations: VERIFY_ANNOTATIONS,
    },
    async ({ email }, extra) => guard(() => verifyEmailTool(verifier, email, options, extra.signal)),
  );

  server.registerTool(
    'verify_emails',
    {
      title: 'Verify a list of email addresses',
      description:
        `Verifies 1 to ${MAX_BATCH} email addresses in one call (several at a time) and returns one result per ` +
        'input, in order, plus a summary by risk and the credits used. Duplicates are verified once. For longer ' +
        `lists, call it again with the next ${MAX_BATCH}.`,
      inputSchema: VerifyEmailsInput,
      outputSchema: VerifyEmailsOutput,
      annotations: VERIFY_ANNOTATIONS,
    },
    async ({ emails }, extra) => guard(() => verifyEmailsTool(verifier, emails, options, extra.signal)),
  );

  server.registerTool(
    'explain_result',
    {
      title: 'Explain a verification result',
      description:
        'Turns a result from verify_email or verify_emails into a recommendation for a person: a verdict ' +
        '(send, send_with_caution, do_not_send, retry_later), a one-sentence headline, an explanation and the ' +
        'signals behind it. Pass the result object as `result`. Uses no credit and calls no service.',
      inputSchema: { result: ExplainInputSchema.describe('A result from verify_email or verify_emails, as it was returned; only `risk` is required.') },
      outputSchema: ExplanationSchema,
      // A pure function of its input: no network, no credit, the same answer every time.
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ result }) => {
      const explanation = explainResult(result);
      return { structuredContent: explanation, content: [{ type: 'text', text: explanationText(explanation) }] };
    },
  );

  return server;
}

/** A tool never throws past this point: whatever fails becomes a readable tool error. */
async function guard<T>(run: () => Promise<T>): Promise<T | ReturnType<typeof toolError>> {
  try {
    return await run();
  } catch (error) {
    return toolError(error);
  }
}
