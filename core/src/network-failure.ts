/** System error codes of a failed connection (Node, undici, node-fetch, superagent), in words. */
const REASONS: Record<string, string> = {
  ENOTFOUND: 'the host name was not found in DNS',
  EAI_AGAIN: 'DNS did not answer',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was reset',
  UND_ERR_SOCKET: 'the connection was closed',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'timed out',
  ECONNABORTED: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for an answer',
};

interface ErrorLike {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  timeout?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * Why a request never got an answer (DNS, refused, reset, timeout), in words; undefined when `error`
 * is something else (an HTTP answer, a bug). Looks through `cause` and AggregateError's `errors`, where
 * fetch and Node's happy-eyeballs put the system error.
 */
export function networkFailure(error: unknown, depth = 0): string | undefined {
  if (!error || typeof error !== 'object' || depth > 4) return undefined;
  const e = error as ErrorLike;
  if (typeof e.code === 'string' && REASONS[e.code]) return REASONS[e.code];
  if (e.name === 'TimeoutError' || (e.timeout !== undefined && e.timeout !== null && e.timeout !== false)) return 'timed out';
  const inner = networkFailure(e.cause, depth + 1) ?? (Array.isArray(e.errors) ? e.errors.map((x) => networkFailure(x, depth + 1)).find(Boolean) : undefined);
  if (inner) return inner;
  if (error instanceof TypeError && /fetch failed/i.test(String(e.message))) return 'network error';
  return undefined;
}
