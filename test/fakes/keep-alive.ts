/**
 * The idle keep-alive time of the platform fakes' HTTP servers. Node's default is 5 s and its fetch
 * keeps an idle connection 4 s: on a loaded machine the client's timer fires late, it sends on a socket
 * the server has just closed, and the request fails with ECONNRESET (a CI run saw it in the Klaviyo
 * fake's conformance suite). Real platform APIs keep idle connections far longer, behind their load
 * balancers; the fakes do as they do.
 */
export const FAKE_KEEP_ALIVE_MS = 60_000;
