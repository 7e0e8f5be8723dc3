import {
  NodeApiError,
  NodeOperationError,
  type IDataObject,
  type IExecuteFunctions,
  type INodeExecutionData,
  type JsonObject,
} from 'n8n-workflow';
import { BatchVerifier, EngineClient, EngineRateLimitError, type BatchReport, type Verification } from '@verify-hub/core';
import { explain } from './explanation';
import { RISK_OUTPUTS } from './outputs';
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_RATE_LIMIT_WAIT_S, MAX_CONCURRENCY } from './properties';
import { CREDENTIAL_TYPE, n8nFetch } from './n8n-fetch';
import { RateLimitWaiter, type Clock } from './rate-limit-wait';

interface VerifyOptions {
  concurrency?: number;
  maxRateLimitWait?: number;
  resultField?: string;
  skipWithoutEmail?: boolean;
}

/** What happens to one input item, decided before any engine call. */
type Plan = { kind: 'verify'; email: string; slot: number } | { kind: 'skip' } | { kind: 'fail'; error: NodeOperationError };

const ENGINE_TIMEOUT_MS = 30_000;
/** 5xx and network retries per address (core's EngineClient backs off between them, then answers unknown). */
const ENGINE_RETRIES = 2;

export interface ExecuteDeps {
  /** Injectable for tests: how rate-limit waits pass. */
  clock?: Clock;
}

function clampConcurrency(value: unknown): number {
  const n = Math.floor(Number(value ?? DEFAULT_CONCURRENCY));
  if (!Number.isFinite(n)) return DEFAULT_CONCURRENCY;
  return Math.min(MAX_CONCURRENCY, Math.max(1, n));
}

/** How a value that is not text is named in the error: "a number (12345)", "true (a boolean)", "a list". */
function describeNonText(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return `a number (${String(value)})`;
    case 'boolean':
      return `${String(value)} (a boolean)`;
    default:
      return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  }
}

/**
 * Reads the email of one item. Only text is verified: any other value (a number, a boolean, an object,
 * a list) fails with an error naming the Email field, because an address is never one, and a wrong
 * expression should say so instead of quietly coming back `invalid`.
 */
function planItem(ctx: IExecuteFunctions, itemIndex: number, skipWithoutEmail: boolean, slot: number): Plan {
  let raw: unknown;
  try {
    raw = ctx.getNodeParameter('email', itemIndex);
  } catch (error) {
    return { kind: 'fail', error: new NodeOperationError(ctx.getNode(), `Email: ${(error as Error).message}`, { itemIndex }) };
  }
  const email = typeof raw === 'string' ? raw.trim() : raw;
  if (email === undefined || email === null || email === '') {
    if (skipWithoutEmail) return { kind: 'skip' };
    return {
      kind: 'fail',
      error: new NodeOperationError(ctx.getNode(), `Item ${itemIndex} has no email`, {
        itemIndex,
        description: 'The Email parameter is empty for this item. Fix the expression, or turn on "Skip Items Without Email" in Options.',
      }),
    };
  }
  if (typeof email !== 'string') {
    return {
      kind: 'fail',
      error: new NodeOperationError(ctx.getNode(), `Email must be text, got ${describeNonText(email)}`, {
        itemIndex,
        description: 'Point the Email expression at a single address, for example {{ $json.email }}.',
      }),
    };
  }
  return { kind: 'verify', email, slot };
}

/** The one place where a stopped batch becomes the node's error, with a message a user can act on. */
export function stopToNodeError(ctx: IExecuteFunctions, stopped: NonNullable<BatchReport['stopped']>, itemIndex?: number): NodeApiError {
  const error = stopped.error;
  const at = itemIndex === undefined ? {} : { itemIndex };
  const response = { message: stopped.message, code: error?.code ?? stopped.reason } as JsonObject;
  switch (stopped.reason) {
    case 'auth':
      return new NodeApiError(ctx.getNode(), response, {
        message: 'Verify Hub rejected the API key',
        description: 'The key in the "Verify Hub API" credentials is missing, invalid or revoked. Update it and use "Test connection".',
        httpCode: '401',
        ...at,
      });
    case 'quota':
      return new NodeApiError(ctx.getNode(), response, {
        message: 'Verify Hub quota exhausted',
        description: `${stopped.message}. Addresses not verified yet were left out of this run.`,
        httpCode: '429',
        ...at,
      });
    default:
      if (error instanceof EngineRateLimitError) {
        return new NodeApiError(ctx.getNode(), response, {
          message: 'Verify Hub rate limit: waited as long as allowed',
          description: `${error.message}. Raise "Max Rate-Limit Wait" in Options, lower "Concurrency", or run again later.`,
          httpCode: '429',
          ...at,
        });
      }
      return new NodeApiError(ctx.getNode(), response, { message: `Verification stopped: ${stopped.message}`, ...at });
  }
}

function shapeOutput(item: INodeExecutionData, result: Verification & { explanation: string }, mode: string, resultField: string): IDataObject {
  const value = result as unknown as IDataObject;
  if (mode === 'replace') return { ...value };
  if (resultField) return { ...item.json, [resultField]: value };
  return { ...item.json, ...value };
}

/**
 * An item that could not be verified, under continueOnFail. The error rides on the item itself
 * (`item.error`): that is what n8n looks at to move an item to the node's error output with
 * "Continue (using error output)", from whichever output it is on, so it never stays on a risk output;
 * with plain "Continue" the item stays where it was put (the first output, or Unknown when routing by
 * risk). Either way n8n then replaces the json of every item carrying `error` with `{ error: <message> }`
 * (normalizeNodeErrors in n8n-core): the nodes after it see only the message, and `pairedItem` is how a
 * workflow gets the row back (`$('Node before').item`). The item's own fields and `errorDescription` in
 * the json below are for callers of `execute` outside n8n's engine; n8n itself does not keep them.
 */
function failedItem(item: INodeExecutionData, error: NodeOperationError | NodeApiError, itemIndex: number): INodeExecutionData {
  return {
    json: { ...item.json, error: error.message, ...(error.description ? { errorDescription: error.description } : {}) },
    ...(item.binary ? { binary: item.binary } : {}),
    error,
    pairedItem: { item: itemIndex },
  };
}

/**
 * Verify operation: reads every item's email, verifies the distinct addresses through core's
 * BatchVerifier (bounded concurrency, duplicates once, auth and quota stop the batch) over an
 * EngineClient that speaks through n8n's HTTP helper, then emits one output item per input item.
 */
export async function executeVerify(ctx: IExecuteFunctions, deps: ExecuteDeps = {}): Promise<INodeExecutionData[][]> {
  const items = ctx.getInputData();
  const routeByRisk = ctx.getNodeParameter('routeByRisk', 0, false) as boolean;
  const outputMode = ctx.getNodeParameter('outputMode', 0, 'merge') as string;
  const options = ctx.getNodeParameter('options', 0, {}) as VerifyOptions;
  const skipWithoutEmail = options.skipWithoutEmail === true;
  const resultField = (options.resultField ?? '').trim();
  const continueOnFail = ctx.continueOnFail();

  const emails: string[] = [];
  const plans = items.map((_item, i) => {
    const plan = planItem(ctx, i, skipWithoutEmail, emails.length);
    if (plan.kind === 'verify') emails.push(plan.email);
    return plan;
  });
  // Bad input fails before any credit is spent, unless the workflow continues on failure.
  const firstFailure = plans.find((p): p is Extract<Plan, { kind: 'fail' }> => p.kind === 'fail');
  if (firstFailure && !continueOnFail) throw firstFailure.error;

  let report: BatchReport | undefined;
  if (emails.length > 0) {
    const credentials = await ctx.getCredentials<{ baseUrl?: string }>(CREDENTIAL_TYPE);
    let client: EngineClient;
    try {
      client = new EngineClient({
        baseUrl: credentials.baseUrl || 'invalid:',
        apiKey: '', // the credential's `authenticate` sets the key header
        fetch: n8nFetch(ctx, ENGINE_TIMEOUT_MS),
        timeoutMs: ENGINE_TIMEOUT_MS,
        retries: ENGINE_RETRIES,
        userAgent: 'n8n-nodes-verify-hub',
      });
    } catch {
      throw new NodeOperationError(ctx.getNode(), 'Base URL in the "Verify Hub API" credentials is not a valid URL');
    }
    const maxWaitS = options.maxRateLimitWait ?? DEFAULT_MAX_RATE_LIMIT_WAIT_S;
    const verifier = new RateLimitWaiter(client, Math.max(0, maxWaitS) * 1000, deps.clock);
    // maxRateLimitWaitMs 0: the waiter above already waited what it may; a rate limit reaching the batch stops it.
    report = await new BatchVerifier(verifier, { concurrency: clampConcurrency(options.concurrency), maxRateLimitWaitMs: 0 }).verifyAll(emails);
    if (report.stopped && !continueOnFail) throw stopToNodeError(ctx, report.stopped);
  }

  const outputs: INodeExecutionData[][] = routeByRisk ? RISK_OUTPUTS.map(() => []) : [[]];
  const unknownOutput = routeByRisk ? RISK_OUTPUTS.indexOf('unknown') : 0;

  plans.forEach((plan, itemIndex) => {
    const item = items[itemIndex]!;
    const pairedItem = { item: itemIndex };
    const binary = item.binary ? { binary: item.binary } : {};
    if (plan.kind === 'skip') {
      outputs[unknownOutput]!.push({ json: item.json, ...binary, pairedItem });
      return;
    }
    const result = plan.kind === 'verify' ? report?.results[plan.slot] : undefined;
    if (!result) {
      // Only reached with continueOnFail (otherwise the error was thrown above).
      const error =
        plan.kind === 'fail'
          ? plan.error
          : report?.stopped
            ? stopToNodeError(ctx, report.stopped, itemIndex)
            : new NodeOperationError(ctx.getNode(), 'The address was not verified', { itemIndex });
      outputs[unknownOutput]!.push(failedItem(item, error, itemIndex));
      return;
    }
    const index = routeByRisk ? RISK_OUTPUTS.indexOf(result.risk) : 0;
    // A repeated address shares one result; `email` stays each item's own spelling ("as given").
    const own = { ...result, email: plan.kind === 'verify' ? plan.email : result.email, explanation: explain(result) };
    outputs[index]!.push({ json: shapeOutput(item, own, outputMode, resultField), ...binary, pairedItem });
  });
  return outputs;
}
