import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of the engine API (DESIGN.md §1) for tests and benches: scriptable per address or per test.
 * It checks `X-API-Key`, answers in the published shape (ENGINE-API.md §2.1) and enforces an optional
 * per-second rate limit and a quota with real 429s and `X-RateLimit-*` headers, and can fail, hang or
 * be slow on demand.
 *
 * The shape of a 200 answer is a `FieldSet`:
 * - `B` (the default): field set B exactly as published, every field, nothing else: `email`, `score`,
 *   `risk`, `syntax_valid`, `mx_found`, `smtp_check`, `is_disposable`, `is_role_account`, `is_catch_all`,
 *   `is_free_provider`, `spam_trap_risk`, `deliverability {grade, score, authentication {spf, dkim, dmarc},
 *   blacklist {listed, listed_count, total_checks}}`, with the published example values
 *   (`smtp_check` "deliverable", `spam_trap_risk` "low"/"none", spf "strict", dkim "found", dmarc "reject").
 * - `A`: field set A only: `email`, `valid`, `deliverable`, `score`, `disposable`, `role_based`,
 *   `free_email`, `mx_found`, `smtp_valid`. (Set A has no catch-all field: a catch-all address is
 *   `deliverable` there.)
 * - `AB`: both sets in one answer, as an engine that serves both would.
 * - `B-unseen`: set B with values outside every known vocabulary (`smtp_check` "probably_ok",
 *   spf "hardfail-ish", ...): a reader must keep them, never refuse the answer.
 *
 * verify-hub's extension fields (`reason`, `checked_at`, `billable`) are not part of the published
 * shape: they are sent only when `extensions` is on, and `reason` also when a behaviour scripts one.
 * `fields` is merged last onto the body, for anything else (nulls, malformed parts, extra fields).
 */

export type FieldSet = 'A' | 'B' | 'AB' | 'B-unseen';
export type ResetForm = 'epoch-seconds' | 'epoch-ms' | 'seconds-from-now';
export type Risk = 'safe' | 'risky' | 'invalid' | 'unknown';

export interface ResultBehaviour {
  kind: 'result';
  risk?: Risk;
  /** Field set B's and A's `score`; `null` leaves it out of the answer. */
  score?: number | null;
  /** Sent as the extension field `reason` (the local engine's), which the published shape does not have. */
  reason?: string;
  fieldSet?: FieldSet;
  flags?: Partial<Flags>;
  /** Merged last onto the answer body: override or add any wire field as it should appear. */
  fields?: Record<string, unknown>;
  latencyMs?: number;
}

export type Behaviour =
  | ResultBehaviour
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'rate-limited'; resetInMs: number; form?: ResetForm; code?: string | null }
  | { kind: 'quota'; resetInMs?: number; form?: ResetForm; code?: string | null }
  | { kind: 'hang' }
  | { kind: 'drop' };

/** What the fake found, in verify-hub's terms; each is written under the published name of the chosen field set. `null`: not determined. */
export interface Flags {
  syntax: boolean | null;
  mx: boolean | null;
  /** `smtp_check` (set B); set A's `smtp_valid` follows from it: true for deliverable, catch_all, mailbox_full, false for undeliverable, else null. */
  smtpCheck: string | null;
  disposable: boolean | null;
  roleAccount: boolean | null;
  catchAll: boolean | null;
  freeProvider: boolean | null;
  spamTrapRisk: string | null;
}

export interface FakeEngineOptions {
  apiKey?: string;
  latencyMs?: number;
  fieldSet?: FieldSet;
  /** Also send verify-hub's extension fields (`reason`, `checked_at`, `billable`), as the local engine does. */
  extensions?: boolean;
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

/**
 * Unscripted addresses answer by their local part's first word: invalid.*, risky.* (a catch-all domain),
 * unknown.* (the SMTP conversation timed out), disposable.* (risky, a disposable provider),
 * notchecked.* (no SMTP conversation: `smtp_check` "not_checked", risky), else safe.
 */
export function defaultBehaviour(email: string): ResultBehaviour {
  const local = email.split('@')[0]?.toLowerCase() ?? '';
  for (const risk of ['invalid', 'risky', 'unknown'] as const) if (local.startsWith(risk)) return { kind: 'result', risk };
  if (local.startsWith('disposable')) return { kind: 'result', risk: 'risky', flags: { disposable: true, catchAll: false, smtpCheck: 'deliverable' } };
  if (local.startsWith('notchecked')) return { kind: 'result', risk: 'risky', flags: { catchAll: false, smtpCheck: 'not_checked' } };
  return { kind: 'result', risk: 'safe' };
}

const SCORES: Record<Risk, number> = { safe: 92, risky: 55, invalid: 3, unknown: 0 };
const REASONS: Record<Risk, string> = { safe: 'deliverable', risky: 'catch_all', invalid: 'mailbox_not_found', unknown: 'smtp_timeout' };
const GRADES: Record<Risk, string> = { safe: 'A', risky: 'C', invalid: 'F', unknown: 'D' };
/** Values no reader has seen, one per known value, for `B-unseen`. */
const UNSEEN: Record<string, string> = {
  deliverable: 'probably_ok', undeliverable: 'no_such_user_probably', catch_all: 'accepts_everything', timeout: 'peer_went_quiet', not_checked: 'skipped_by_policy',
  none: 'negligible-ish', low: 'low-ish', strict: 'hardfail-ish', found: 'selector-rotating', reject: 'p=reject; pct=50',
};
const unseen = (value: string | null) => (value === null ? null : UNSEEN[value] ?? `${value}-ish`);

/** What set A's `smtp_valid` says for an SMTP outcome. */
function smtpValid(smtpCheck: string | null): boolean | null {
  if (smtpCheck === 'deliverable' || smtpCheck === 'catch_all' || smtpCheck === 'mailbox_full') return true;
  if (smtpCheck === 'undeliverable') return false;
  return null;
}

export function resultBody(email: string, b: ResultBehaviour, fieldSet: FieldSet, extensions = false): Record<string, unknown> {
  const risk = b.risk ?? 'safe';
  const noMx = risk === 'invalid' && b.reason === 'no_mx';
  const flags: Flags = {
    syntax: true,
    mx: !noMx,
    smtpCheck: noMx ? 'not_checked' : { safe: 'deliverable', risky: 'catch_all', invalid: 'undeliverable', unknown: 'timeout' }[risk],
    disposable: false,
    roleAccount: false,
    catchAll: risk === 'risky',
    freeProvider: false,
    spamTrapRisk: risk === 'safe' ? 'none' : 'low',
    ...b.flags,
  };
  const score = b.score === undefined ? SCORES[risk] : b.score;
  const body: Record<string, unknown> = { email };
  if (score !== null) body.score = score;
  if (fieldSet !== 'A') {
    const vocab = fieldSet === 'B-unseen' ? unseen : (v: string | null) => v;
    Object.assign(body, {
      risk,
      syntax_valid: flags.syntax,
      mx_found: flags.mx,
      smtp_check: vocab(flags.smtpCheck),
      is_disposable: flags.disposable,
      is_role_account: flags.roleAccount,
      is_catch_all: flags.catchAll,
      is_free_provider: flags.freeProvider,
      spam_trap_risk: vocab(flags.spamTrapRisk),
      deliverability: {
        grade: fieldSet === 'B-unseen' ? `${GRADES[risk]}+` : GRADES[risk],
        score: score ?? SCORES[risk],
        authentication: { spf: vocab(flags.mx ? 'strict' : 'missing'), dkim: vocab(flags.mx ? 'found' : 'missing'), dmarc: vocab(flags.mx ? 'reject' : 'missing') },
        blacklist: { listed: false, listed_count: 0, total_checks: 10 },
      },
    });
  }
  if (fieldSet === 'A' || fieldSet === 'AB') {
    Object.assign(body, {
      valid: flags.syntax !== false && flags.mx !== false,
      deliverable: risk === 'unknown' ? null : risk !== 'invalid',
      disposable: flags.disposable,
      role_based: flags.roleAccount,
      free_email: flags.freeProvider,
      mx_found: flags.mx,
      smtp_valid: smtpValid(flags.smtpCheck),
    });
  }
  if (extensions || b.reason !== undefined) {
    body.reason = b.reason ?? (risk === 'risky' && flags.disposable ? 'disposable' : risk === 'risky' && flags.smtpCheck === 'not_checked' ? 'smtp_not_checked' : REASONS[risk]);
  }
  if (extensions) Object.assign(body, { checked_at: new Date().toISOString(), billable: risk !== 'unknown' });
  return { ...body, ...b.fields };
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
  /** Billed answers per address (normalised form, as asked). */
  readonly billedPer = new Map<string, number>();
  /** Answers given again under an `Idempotency-Key` already answered (not billed). */
  replays = 0;
  /** Idempotency-Key -> the address and the billed answer kept under it (no body while the first request runs). */
  private readonly idempotent = new Map<string, { email: string; body?: Record<string, unknown> }>();
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
    // Plain node:http, no framework: a 25,000-contact acceptance run sends it 25,000 requests, and express's
    // routing cost the test's process seconds of CPU.
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://engine');
      if (req.method === 'GET' && url.pathname === '/api/v1/verify') void this.handle(req, new Reply(res), url);
      else new Reply(res).status(404).json({ error: 'not found', code: 'NOT_FOUND' });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
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

  private async handle(req: IncomingMessage, res: Reply, url: URL): Promise<void> {
    // One email parameter, as express's query parser reads it (a repeated one is a list, not an address).
    const emails = url.searchParams.getAll('email');
    const email = emails.length === 1 ? emails[0] : undefined;
    const keyMatched = req.headers['x-api-key'] === this.apiKey;
    this.requests.push({ email, keyMatched, url: req.url ?? '', at: Date.now() });
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
    // The verify-hub extension the local engine serves (engine/README.md): a billed answer kept per key.
    const idempotencyKey = headerOf(req, 'idempotency-key');
    if (idempotencyKey !== undefined) {
      const kept = this.idempotent.get(idempotencyKey);
      if (kept?.body && kept.email === email) {
        this.replays++;
        res.set('Idempotent-Replayed', 'true').json(kept.body);
        return;
      }
      if (kept) {
        const running = kept.email === email;
        res.status(running ? 409 : 422).json({ error: `Idempotency-Key: ${running ? 'still being answered' : 'used for another address'}`, code: running ? 'IDEMPOTENCY_KEY_IN_USE' : 'IDEMPOTENCY_KEY_REUSED', field: 'Idempotency-Key' });
        return;
      }
      this.idempotent.set(idempotencyKey, { email });
    }
    try {
      await this.answer(req, res, email, now, form, idempotencyKey);
    } finally {
      // Only a billed answer stays under its key (even when its client went away meanwhile).
      if (idempotencyKey !== undefined && !this.idempotent.get(idempotencyKey)?.body) this.idempotent.delete(idempotencyKey);
    }
  }

  private async answer(req: IncomingMessage, res: Reply, email: string, now: number, form: ResetForm, idempotencyKey: string | undefined): Promise<void> {
    if (this.options.quota !== undefined && this.billed >= this.options.quota) {
      return this.answer429(res, endOfMonth(now), form, 'QUOTA_EXCEEDED', 'Monthly quota exhausted');
    }
    const behaviour = this.nextBehaviour(email);
    switch (behaviour.kind) {
      case 'result': {
        const latency = behaviour.latencyMs ?? this.options.latencyMs ?? 0;
        if (latency > 0) await new Promise((r) => setTimeout(r, latency));
        const body = resultBody(email, behaviour, behaviour.fieldSet ?? this.options.fieldSet ?? 'B', this.options.extensions);
        if ((behaviour.risk ?? 'safe') !== 'unknown') {
          this.billed++;
          this.billedPer.set(email, (this.billedPer.get(email) ?? 0) + 1);
          if (idempotencyKey !== undefined) this.idempotent.set(idempotencyKey, { email, body });
        }
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

  private answer429(res: Reply, resetAt: number, form: ResetForm, code: string | null, message: string): void {
    res.set('X-RateLimit-Reset', resetHeader(resetAt, form));
    res.status(429).json(code === null ? { error: message } : { error: message, code });
  }
}

/** A header's one value (the first of a repeated one), as express's `req.get` gives it. */
function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The few of express's response helpers the fake answers with. */
class Reply {
  constructor(private readonly res: ServerResponse) {}

  status(code: number): this {
    this.res.statusCode = code;
    return this;
  }

  set(name: string | Record<string, string>, value?: string): this {
    const headers = typeof name === 'string' ? { [name]: value ?? '' } : name;
    for (const [key, v] of Object.entries(headers)) this.res.setHeader(key, v);
    return this;
  }

  json(body: unknown): void {
    const text = JSON.stringify(body);
    this.res.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.res.setHeader('Content-Length', Buffer.byteLength(text));
    this.res.end(text);
  }

  on(event: 'close', listener: () => void): void {
    this.res.on(event, listener);
  }
}

function endOfMonth(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
