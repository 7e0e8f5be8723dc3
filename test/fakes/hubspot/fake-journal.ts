import { Router, type Request, type Response } from 'express';
import { randomBytes, randomUUID } from 'node:crypto';

/**
 * HubSpot's webhooks journal (2026-03, the local journal of one installed portal) as the fake serves
 * it: `earliest` and `offset/{offset}/next` answer `{ url, expiresAt, currentOffset }` for one entry
 * (204 when nothing follows yet, 404 for an offset expired or never issued), the entry's file lives
 * at the signed `url` as `{ offset, journalEvents, publishedAt }`, and entries older than the
 * retention (3 days) are gone. Callers need an app token (client credentials), 401 otherwise, granted
 * the scope the published operations declare (`webhooks-journal-data-access`), 403 otherwise. Its
 * clock is its own, so a test can let an hour or three days pass. `answerWith` makes the next answer
 * any body (a shape HubSpot has not published).
 */
interface Entry {
  offset: string;
  portalId: string;
  publishedAt: number;
  events: Record<string, unknown>[];
}

export const JOURNAL_PATH = '/webhooks-journal/journal-local/2026-03';
export const JOURNAL_DATA_SCOPE = 'webhooks-journal-data-access';
const FILES_PATH = '/webhooks-journal-files';

export class FakeJournal {
  retentionMs = 3 * 86_400_000;
  /** How far the journal's clock is ahead of the real one. */
  private skewMs = 0;
  private readonly entries: Entry[] = [];
  private readonly fileSignatures = new Map<string, string>();
  /** Entry files fetched, by offset: a reader that re-reads shows up here. */
  readonly fetches = new Map<string, number>();
  private oddAnswers: unknown[] = [];

  /** The next answers of `earliest` / `next` are these bodies, as they are (200). */
  answerWith(...bodies: unknown[]): void {
    this.oddAnswers.push(...bodies);
  }

  now(): number {
    return Date.now() + this.skewMs;
  }

  /** Lets time pass for the journal (retention, occurredAt of new events). */
  advance(ms: number): void {
    this.skewMs += ms;
  }

  /** Appends one entry (one file) for the portal; each event gets the portal and an occurredAt. Returns its offset. */
  publish(portalId: string, events: Record<string, unknown>[]): string {
    const offset = randomUUID();
    const publishedAt = this.now();
    this.entries.push({ offset, portalId, publishedAt, events: events.map((e) => ({ portalId: Number(portalId), occurredAt: publishedAt, ...e })) });
    return offset;
  }

  /** A contact created with an address (an OBJECT CREATE carrying its email). */
  contactCreated(portalId: string, objectId: string, email: string): Record<string, unknown> {
    return { subscriptionType: 'OBJECT', action: 'CREATE', objectTypeId: '0-1', objectId: Number(objectId), propertyChanges: [{ propertyName: 'email', newValue: email }] };
  }

  private retained(portalId: string): Entry[] {
    const from = this.now() - this.retentionMs;
    return this.entries.filter((e) => e.portalId === portalId && e.publishedAt >= from);
  }

  private answer(req: Request, res: Response, entry: Entry | undefined): void {
    if (this.oddAnswers.length) return void res.json(this.oddAnswers.shift());
    if (!entry) return void res.status(204).end();
    const signature = this.fileSignatures.get(entry.offset) ?? randomBytes(8).toString('hex');
    this.fileSignatures.set(entry.offset, signature);
    const base = `${req.protocol}://${req.get('host')}`;
    res.json({ url: `${base}${FILES_PATH}/${entry.offset}?signature=${signature}`, expiresAt: new Date(this.now() + 300_000).toISOString(), currentOffset: entry.offset });
  }

  /** Mounted before the fake's portal-token auth: `appTokenScopes` gives a client-credentials token's scopes (undefined for any other). */
  router(appTokenScopes: (token: string | undefined) => string[] | undefined): Router {
    const router = Router();
    const portalOf = (req: Request, res: Response): string | undefined => {
      const scopes = appTokenScopes(/^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1]);
      if (!scopes) return void res.status(401).json({ status: 'error', category: 'INVALID_AUTHENTICATION', message: 'a client credentials token is required' });
      if (!scopes.includes(JOURNAL_DATA_SCOPE)) return void res.status(403).json({ status: 'error', category: 'MISSING_SCOPES', message: `This app hasn't been granted all required scopes to make this call: ${JOURNAL_DATA_SCOPE}` });
      const portalId = String(req.query.installPortalId ?? '');
      if (!/^\d+$/.test(portalId)) return void res.status(400).json({ status: 'error', category: 'VALIDATION_ERROR', message: 'installPortalId: must be an integer' });
      return portalId;
    };
    router.get(`${JOURNAL_PATH}/earliest`, (req, res) => {
      const portalId = portalOf(req, res);
      if (portalId) this.answer(req, res, this.retained(portalId)[0]);
    });
    router.get(`${JOURNAL_PATH}/offset/:offset/next`, (req, res) => {
      const portalId = portalOf(req, res);
      if (!portalId) return;
      const entries = this.retained(portalId);
      const at = entries.findIndex((e) => e.offset === req.params.offset);
      if (at < 0) return void res.status(404).json({ status: 'error', category: 'OBJECT_NOT_FOUND', message: 'offset expired or unknown' });
      this.answer(req, res, entries[at + 1]);
    });
    router.get(`${FILES_PATH}/:offset`, (req, res) => {
      const entry = this.entries.find((e) => e.offset === req.params.offset);
      if (!entry || this.fileSignatures.get(entry.offset) !== req.query.signature || entry.publishedAt < this.now() - this.retentionMs) return void res.status(403).send('AccessDenied');
      this.fetches.set(entry.offset, (this.fetches.get(entry.offset) ?? 0) + 1);
      res.json({ offset: entry.offset, journalEvents: entry.events, publishedAt: new Date(entry.publishedAt).toISOString() });
    });
    return router;
  }
}
