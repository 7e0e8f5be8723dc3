import { request } from 'node:http';

/**
 * One HTTP request on a connection of its own (no keep-alive pool), answering status and body text.
 *
 * Why not fetch: the hub keeps idle connections 65 s (above a load balancer's idle time) and says so in
 * `Keep-Alive: timeout=65`; fetch then keeps a pooled connection up to 64 s. A suite that polls on one
 * connection for a minute leaves another idle that long, and on a loaded machine fetch's timer fires
 * late: it sends on the connection the hub has just closed ("other side closed", a Klaviyo acceptance
 * run on CI). A connection per call cannot be stale; on loopback it costs a fraction of a millisecond.
 */
export function requestOnFreshConnection(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
