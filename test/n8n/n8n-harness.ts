import { mockDeep, type DeepMockProxy } from 'jest-mock-extended';
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INode, INodeExecutionData } from 'n8n-workflow';
import { VerifyHubApi } from 'n8n-nodes-verify-hub';

export interface Credentials {
  apiKey: string;
  baseUrl: string;
}

/**
 * Stands in for n8n's `httpRequestWithAuthentication`: applies the credential type's own `authenticate`
 * headers (resolving `={{$credentials.x}}`), sends the request for real, and answers as n8n does with
 * `returnFullResponse` (lower-case headers, parsed JSON body), throwing on HTTP errors unless told not to.
 */
export function fakeHttpWithAuthentication(credentials: Credentials, onRequest?: (url: string) => void) {
  const credentialType = new VerifyHubApi();
  return async (type: string, options: IHttpRequestOptions) => {
    if (type !== credentialType.name) throw new Error(`unknown credential type ${type}`);
    const headers: Record<string, string> = { ...(options.headers as Record<string, string>) };
    for (const [name, template] of Object.entries(credentialType.authenticate.properties.headers ?? {})) {
      const field = /^=\{\{\$credentials\.(\w+)\}\}$/.exec(String(template))?.[1];
      headers[name] = field ? String(credentials[field as keyof Credentials]) : String(template);
    }
    const url = new URL(options.url, options.baseURL);
    for (const [k, v] of Object.entries(options.qs ?? {})) url.searchParams.set(k, String(v));
    onRequest?.(url.toString());
    const res = await fetch(url, { method: options.method ?? 'GET', headers, signal: options.abortSignal as AbortSignal | undefined });
    const text = await res.text();
    let body: unknown = text;
    if (options.json) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    if (res.status >= 400 && !options.ignoreHttpStatusErrors) throw Object.assign(new Error(`Request failed with status code ${res.status}`), { httpCode: String(res.status) });
    const responseHeaders: IDataObject = {};
    res.headers.forEach((value, name) => (responseHeaders[name] = value));
    return options.returnFullResponse ? { body, headers: responseHeaders, statusCode: res.status, statusMessage: res.statusText } : body;
  };
}

export interface NodeSetup {
  items: INodeExecutionData[];
  credentials: Credentials;
  /** Node parameters; `email` defaults to the expression `{{ $json.email }}` per item. */
  params?: { email?: (item: INodeExecutionData, index: number) => unknown; routeByRisk?: boolean; outputMode?: 'merge' | 'replace'; options?: IDataObject };
  continueOnFail?: boolean;
  onRequest?: (url: string) => void;
}

export const NODE: INode = {
  id: 'node-1',
  name: 'Email Verification',
  type: 'n8n-nodes-verify-hub.emailVerification',
  typeVersion: 1,
  position: [0, 0],
  parameters: {},
};

/** A mocked `IExecuteFunctions` (jest-mock-extended) wired like n8n would for this node. */
export function executeFunctions(setup: NodeSetup): DeepMockProxy<IExecuteFunctions> {
  const ctx = mockDeep<IExecuteFunctions>();
  const p = setup.params ?? {};
  ctx.getInputData.mockReturnValue(setup.items);
  ctx.getNode.mockReturnValue(NODE);
  ctx.continueOnFail.mockReturnValue(setup.continueOnFail ?? false);
  ctx.getCredentials.mockResolvedValue({ ...setup.credentials });
  (ctx.getNodeParameter as jest.Mock).mockImplementation((name: string, itemIndex: number, fallback?: unknown) => {
    switch (name) {
      case 'email':
        return p.email ? p.email(setup.items[itemIndex]!, itemIndex) : setup.items[itemIndex]!.json.email;
      case 'routeByRisk':
        return p.routeByRisk ?? fallback;
      case 'outputMode':
        return p.outputMode ?? fallback;
      case 'options':
        return p.options ?? fallback;
      default:
        throw new Error(`unexpected parameter ${name}`);
    }
  });
  ctx.helpers.httpRequestWithAuthentication.mockImplementation(fakeHttpWithAuthentication(setup.credentials, setup.onRequest) as never);
  return ctx;
}

export function itemsFor(...emails: (string | undefined)[]): INodeExecutionData[] {
  return emails.map((email, i) => ({ json: { id: i + 1, ...(email === undefined ? {} : { email }) } }));
}

/**
 * What n8n itself does with a node's output under "Continue (using error output)" (n8n-core,
 * WorkflowExecute.handleNodeErrorOutput, run after the node's execute): from each of the node's own main
 * outputs, an item that carries `error` on the item, or whose json holds nothing but `error` (or `error` and
 * `message`), moves to the error output appended after them; every other item stays where the node put it.
 * Then, as for any node that continues on failure, `asN8nRecordsIt`. The real run is
 * `connectors/n8n/scripts/e2e-real-n8n.sh`.
 */
export function withErrorOutput(outputs: INodeExecutionData[][]): INodeExecutionData[][] {
  const errorItems: INodeExecutionData[] = [];
  const kept = outputs.map((items) =>
    items.filter((item) => {
      const keys = Object.keys(item.json);
      const isError = item.error !== undefined || (item.json.error !== undefined && (keys.length === 1 || (keys.length === 2 && item.json.message !== undefined)));
      if (isError) errorItems.push(item);
      return !isError;
    }),
  );
  return asN8nRecordsIt([...kept, errorItems]);
}

/**
 * What n8n keeps of a node's output items (n8n-core, WorkflowExecute's `normalizeNodeErrors`, after every
 * node run, "Continue" and the error output alike): the json of an item carrying `error` is replaced by
 * `{ error: <its message> }` (the item's own fields and anything else the node put there are gone);
 * `pairedItem` stays, and is how a workflow gets the row back. Seen in a real n8n 2.41 run.
 */
export function asN8nRecordsIt(outputs: INodeExecutionData[][]): INodeExecutionData[][] {
  return outputs.map((items) => items.map((item) => (item.error !== undefined ? { ...item, json: { error: item.error.message } } : item)));
}
