/**
 * An open-loop load at a steady rate: request i leaves at start + i / rate whatever the answers
 * before it did, and its latency counts from that planned time (a late send counts against the server,
 * so no coordinated omission). autocannon's `overallRate` is not that: each connection sends its
 * whole second's quota the moment a one-second timer fires, so "30 batches/s" arrives as a burst of
 * 16 concurrent requests every second, and its correction for coordinated omission records each answer
 * with an expected interval of ceil(1 / rate) = 1 ms (a unit slip: the histogram is in ms), which
 * adds n - 1 made-up samples for an answer of n ms.
 */
import { Agent, request } from 'node:http';

export interface SteadyRequest {
  path: string;
  body: string;
  headers: Record<string, string>;
}

export interface SteadyResult {
  sent: number;
  ok: number;
  failed: number;
  /** Latencies in ms from each request's planned send time to the end of its answer, sorted. */
  latencies: number[];
}

/** Sends `perSecond` requests a second to `base` for `seconds`, evenly spaced; `next` makes each one. */
export async function steadyLoad(base: string, perSecond: number, seconds: number, next: () => SteadyRequest): Promise<SteadyResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const url = new URL(base);
  const total = Math.round(perSecond * seconds);
  const intervalMs = 1000 / perSecond;
  const started = performance.now() + 20;
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const sendOne = (planned: number) =>
    new Promise<void>((resolve) => {
      const { path, body, headers } = next();
      const req = request({ host: url.hostname, port: url.port, path, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - planned);
          if (res.statusCode === 200) ok++;
          else failed++;
          resolve();
        });
      });
      req.on('error', () => {
        failed++;
        resolve();
      });
      req.end(body);
    });
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const planned = started + i * intervalMs;
    const wait = planned - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(sendOne(planned));
  }
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { sent: total, ok, failed, latencies };
}

