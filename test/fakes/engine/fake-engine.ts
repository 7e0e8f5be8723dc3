import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of the engine API (DESIGN.md §1) for tests and benches: scriptable per address or per test.
 * It checks `X-API-Key`, answers field set A, B or both, enforces an optional per-second rate limit
 * and a quota with real 429s and `X-RateLimit-*` headers, and can fail, hang or be slow on demand.
 */

export type FieldSet = 'A' | 'B' | 'AB';
export type ResetForm = 'epoch-seconds' | 'epoch-ms' | 'seconds-from-now';
export type Risk = 'safe' | 'risky' | 'invalid' | 'unknown';

export type Behaviour =
  | { kind: 'result'; risk?: Risk; score?: number; reason?: string; fieldSet?: FieldSet; flags?: Partial<Flags>; latencyMs?: number }
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'rate-limited'; resetInMs: number; form?: ResetForm; code?: string | null }
  | { kind: 'quota'; resetInMs?: number; form?: ResetForm; code?: string | null }
  | { kind: 'hang' }
  | { kind: 'drop' };

export interface Flags {
  disposable: boolean;
  role_account: boolean;
  catch_all: boolean;
  free_provider: boolean;
  mx: boolean;
  smtp: boolean | null;
}

export interface FakeEngineOptions {
  apiKey?: string;
  latencyMs?: number;
  fieldSet?: FieldSet;
  /** Server-side limit R: requests per second (fixed one-second windows). */
  ratePerSecond?: number;
  resetForm?: ResetForm;
  /** Billable verifications allowed before 429 quota. */
  quota?: number;
}

export interface RecordedRequest {
  email: string | undefined;
  keyMatched: boolean;
  /** The whole request URL: tests assert the key never appears in it. */
  url: string;
  at: number;
}

const DEFAULT_KEY = 'test-engine-key';

/** Unscripted addresses answer by their local part's first word: invalid.*, risky.*, unknown.*, else safe. */
function defaultBehaviour(email: string): Behaviour {
  const local = email.split('@')[0]?.toLowerCase() ?? '';
  for (const risk of ['invalid', 'risky', 'unknown'] as const) if (local.startsWith(risk)) return { kind: 'result', risk };
  return { kind: 'result', risk: 'safe' };
}

const SCORES: Record<Risk, number> = { safe: 92, risky: 55, invalid: 3, unknown: 0 };
const REASONS: Record<Risk, string> = { safe: 'deliverable', risky: 'catch_all', invalid: 'mailbox_not_found', unknown: 'smtp_timeout' };

export function resultBody(email: string, b: Extract<Behaviour, { kind: 'result' }>, fieldSet: FieldSet): Record<string, unknown> {
  const risk = b.risk ?? 'safe';
  const flags: Flags = {
    disposable: false,
    role_account: false,
    catch_all: risk === 'risky',
    free_provider: false,
    mx: risk !== 'invalid' || b.reason !== 'no_mx',
    smtp: risk === 'unknown' ? null : risk !== 'invalid',
    ...b.flags,
  };
  const body: Record<string, unknown> = { email };
  if (fieldSet.includes('B')) {
    Object.assign(body, {
      score: b.score ?? SCORES[risk],
      risk,
      reason: b.reason ?? REASONS[risk],
      checks: {
        syntax: true,
        mx: flags.mx,
        smtp: flags.smtp,
        disposable: flags.disposable,
        role_account: flags.role_account,
        catch_all: flags.catch_all,
        free_provider: flags.free_provider,
        spam_trap_risk: 'none',
      },
      checked_at: new Date().toISOString(),
      billable: risk !== 'unknown',
    });
  }
  if (fieldSet.includes('A')) {
    Object.assign(body, {
      valid: risk !== 'invalid' || b.reason === 'mailbox_not_found',
      deliverable: risk === 'unknown' ? null : risk !== 'invalid',
      smtp_valid: flags.smtp,
      mx_found: flags.mx,
      disposable: flags.disposable,
      role_account: flags.role_account,
      catch_all: flags.catch_all,
      free_provider: flags.free_provider,
    });
  }
  return body;
}

export function resetHeader(resetAtMs: number, form: ResetForm, now = Date.now()): string {
  switch (form) {
    case 'epoch-ms':
      return String(resetAtMs);
    case 'epoch-seconds':
      return String(Math.ceil(resetAtMs / 1000));
    case 'seconds-from-now':
      return String(Math.max(0, Math.ceil((resetAtMs - now) / 1000)));
  }
}

export class FakeEngine {
  /** The one key it accepts; `rotateKey` revokes it for a new one. */
  apiKey: string;
  readonly requests: RecordedRequest[] = [];
  /** Billable answers given so far (what the quota counts). */
  billed = 0;
  private readonly scripts = new Map<string, Behaviour[]>();
  private server?: Server;
  private windowStart = 0;
  private windowCount = 0;
  private readonly hanging = new Set<() => void>();

  constructor(public options: FakeEngineOptions = {}) {
    this.apiKey = options.apiKey ?? DEFAULT_KEY;
  }

  /** Revokes the current key (401 from now on) and accepts `next` instead. */
  rotateKey(next: string): void {
    this.apiKey = next;
  }

  /** Scripts the next answers for one address (normalised form); the last step repeats. */
  script(email: string, ...steps: Behaviour[]): this {
    this.scripts.set(email, steps);
    return this;
  }

  callsFor(email: string): number {
    return this.requests.filter((r) => r.email === email && r.keyMatched).length;
  }

  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('fake engine not started');
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<string> {
    const app = express();
    app.get('/api/v1/verify', (req, res) => void this.handle(req, res));
    app.use((_req, res) => res.status(404).json({ error: 'not found', code: 'NOT_FOUND' }));
    await new Promise<void>((resolve) => {
      this.server = app.listen(0, '127.0.0.1', () => resolve());
    });
    this.server!.keepAliveTimeout = 30_000;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const release of this.hanging) release();
    this.hanging.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  private nextBehaviour(email: string): Behaviour {
    const steps = this.scripts.get(email);
    if (!steps || steps.length === 0) return defaultBehaviour(email);
    return steps.length > 1 ? steps.shift()! : steps[0]!;
  }

  private async handle(req: express.Request, res: express.Response): Promise<void> {
    const email = typeof req.query.email === 'string' ? req.query.email : undefined;
    const keyMatched = req.get('x-api-key') === this.apiKey;
    this.requests.push({ email, keyMatched, url: req.originalUrl, at: Date.now() });
    if (!keyMatched) {
      res.status(401).json({ error: 'Invalid or missing API key', code: 'UNAUTHORIZED' });
      return;
    }
    if (!email) {
      res.status(400).json({ error: 'email: required', code: 'INVALID_REQUEST' });
      return;
    }
    const form = this.options.resetForm ?? 'epoch-seconds';
    const now = Date.now();
    if (this.options.ratePerSecond !== undefined) {
      const second = Math.floor(now / 1000) * 1000;
      if (second !== this.windowStart) {
        this.windowStart = second;
        this.windowCount = 0;
      }
      this.windowCount++;
      const remaining = Math.max(0, this.options.ratePerSecond - this.windowCount);
      res.set({ 'X-RateLimit-Limit': String(this.options.ratePerSecond), 'X-RateLimit-Remaining': String(remaining), 'X-RateLimit-Reset': resetHeader(second + 1000, 'epoch-ms') });
      if (this.windowCount > this.options.ratePerSecond) {
        res.set('X-RateLimit-Reset', resetHeader(second + 1000, form, now));
        res.status(429).json({ error: 'Rate limit exceeded', code: 'RATE_LIMITED' });
        return;
      }
    }
    if (this.options.quota !== undefined && this.billed >= this.options.quota) {
      return this.answer429(res, endOfMonth(now), form, 'QUOTA_EXCEEDED', 'Monthly quota exhausted');
    }
    const behaviour = this.nextBehaviour(email);
    switch (behaviour.kind) {
      case 'result': {
        const latency = behaviour.latencyMs ?? this.options.latencyMs ?? 0;
        if (latency > 0) await new Promise((r) => setTimeout(r, latency));
        const body = resultBody(email, behaviour, behaviour.fieldSet ?? this.options.fieldSet ?? 'B');
        if ((behaviour.risk ?? 'safe') !== 'unknown') this.billed++;
        res.json(body);
        return;
      }
      case 'status':
        res.status(behaviour.status).set(behaviour.headers ?? {}).json(behaviour.body ?? { error: `status ${behaviour.status}` });
        return;
      case 'rate-limited':
        return this.answer429(res, now + behaviour.resetInMs, behaviour.form ?? form, behaviour.code === undefined ? 'RATE_LIMITED' : behaviour.code, 'Rate limit exceeded');
      case 'quota':
        return this.answer429(res, now + (behaviour.resetInMs ?? 10 * 24 * 3600 * 1000), behaviour.form ?? form, behaviour.code === undefined ? 'QUOTA_EXCEEDED' : behaviour.code, 'Monthly quota exhausted');
      case 'hang':
        await new Promise<void>((resolve) => {
          this.hanging.add(resolve);
          res.on('close', () => {
            this.hanging.delete(resolve);
            resolve();
          });
        });
        return;
      case 'drop':
        req.socket.destroy();
        return;
    }
  }

  private answer429(res: express.Response, resetAt: number, form: ResetForm, code: string | null, message: string): void {
    res.set('X-RateLimit-Reset', resetHeader(resetAt, form));
    res.status(429).json(code === null ? { error: message } : { error: message, code });
  }
}

function endOfMonth(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
