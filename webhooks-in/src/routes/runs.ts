import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { FINISHED_RUN_STATUSES, ledgerInWords, reasonInWords, type Pricing } from '@verify-hub/core';
import type { RunRecord, RunService } from '@verify-hub/sync-jobs';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';
import { ListRunsQuery, ResumeRunBody, RunIdParams, StartRunBody } from '../schemas';
import { runView as viewOf } from '../run-view';
import type { RunBreakdownView, RunListQuery } from '../run-api-types';
import { reportCsv } from '../report-csv';

const EVENTS_INTERVAL_MS = 1000;

/**
 * The admin API's run routes (mounted under /api, behind the token); `pricing` shows what runs spent in
 * money. `startsHere(platform)` is false for a platform whose runs start from their own route (a source
 * that is not a connection, such as an upload): POST /runs refuses it, naming `platform`.
 */
export function runRoutes(runs: RunService, options: { pricing?: Pricing; startsHere?: (platform: string) => boolean } = {}): Router {
  const router = Router();
  const runView = (run: RunRecord) => viewOf(run, { pricing: options.pricing });

  const existing = async (id: string) => {
    const run = await runs.get(id);
    if (!run) throw new HttpError(404, 'NOT_FOUND', `run ${id} not found`);
    return run;
  };

  router.post('/runs', async (req, res) => {
    const body = parseInput(StartRunBody, req.body ?? {}, 'body');
    if (options.startsHere && !options.startsHere(body.platform)) throw new HttpError(400, 'INVALID_INPUT', `body.platform: ${body.platform} runs start from their own route, not here`, 'body.platform');
    const run = await runs.start(body);
    res.status(201).location(`/api/runs/${run.id}`).json(runView(run));
  });

  router.get('/runs', async (req, res) => {
    const query: RunListQuery = parseInput(ListRunsQuery, req.query, 'query');
    const list = await runs.list({ status: query.status, source: query.source, search: query.q, limit: query.limit });
    res.json({ runs: list.map(runView) });
  });

  router.get('/runs/:id', async (req, res) => {
    const { id } = parseInput(RunIdParams, req.params, 'params');
    res.json(runView(await existing(id)));
  });

  /**
   * Server-sent events: the run view as `event: run` now and on every change (the hub reads the run
   * once a second for this stream, not the browser), a comment every 15 s to keep proxies from
   * closing it; the stream ends after the run finished, or when the hub shuts down. Same auth as the other routes.
   */
  router.get('/runs/:id/events', async (req, res) => {
    const { id } = parseInput(RunIdParams, req.params, 'params');
    await existing(id);
    res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    let last = '';
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    let beats = 0;
    const stop = () => {
      closed = true;
      clearTimeout(timer);
    };
    req.on('close', stop);
    // A hub shutting down stops listening at once: the stream ends within a tick instead of holding the drain.
    const server = (req.socket as { server?: { listening?: boolean } }).server;
    const tick = async () => {
      if (closed) return;
      if (server && server.listening === false) {
        stop();
        res.end();
        return;
      }
      const run = await runs.get(id).catch(() => undefined);
      if (closed) return;
      if (run) {
        const data = JSON.stringify(runView(run));
        if (data !== last) {
          last = data;
          res.write(`event: run\ndata: ${data}\n\n`);
        } else if (++beats % 15 === 0) res.write(': keep-alive\n\n');
        if (FINISHED_RUN_STATUSES.includes(run.status)) {
          stop();
          res.end();
          return;
        }
      }
      timer = setTimeout(() => void tick(), EVENTS_INTERVAL_MS);
      timer.unref();
    };
    await tick();
  });

  router.post('/runs/:id/cancel', async (req, res) => {
    const { id } = parseInput(RunIdParams, req.params, 'params');
    await existing(id);
    res.json(runView(await runs.cancel(id)));
  });

  router.post('/runs/:id/resume', async (req, res) => {
    const { id } = parseInput(RunIdParams, req.params, 'params');
    const { maxCredits } = parseInput(ResumeRunBody, req.body ?? {}, 'body');
    await existing(id);
    res.json(runView(await runs.resume(id, maxCredits === undefined ? {} : { maxCredits })));
  });

  router.post('/runs/:id/pause', async (req, res) => {
    const { id } = parseInput(RunIdParams, req.params, 'params');
    const run = await existing(id);
    if (run.status !== 'queued' && run.status !== 'running') throw new HttpError(400, 'INVALID_INPUT', `id: run ${id} is ${run.status}; only a queued or running run can be paused`, 'id');
    res.json(runView(await runs.pause(id)));
  });

  router.get('/runs/:id/breakdown', async (req, res) => {
    const { id } = parseInput(RunIdParams, req.params, 'params');
    await existing(id);
    const breakdown = await runs.breakdown(id);
    // The ledger and the reasons in plain words (core's CATEGORY_WORDS and REASON_WORDS), as the run page shows them.
    const view: RunBreakdownView = { ...breakdown, categories: ledgerInWords(breakdown.ledger, { unknown: breakdown.unknownReasons }), reasons: breakdown.reasons.map((r) => ({ ...r, words: reasonInWords(r.reason) })) };
    res.json(view);
  });

  router.post('/runs/:id/recheck-unknowns', async (req, res) => {
    const { id } = parseInput(RunIdParams, req.params, 'params');
    await existing(id);
    const run = await runs.recheckUnknowns(id);
    res.status(201).location(`/api/runs/${run.id}`).json(runView(run));
  });

  router.get('/runs/:id/report.csv', async (req, res) => {
    const { id } = parseInput(RunIdParams, req.params, 'params');
    await existing(id);
    res.status(200).type('text/csv; charset=utf-8').attachment(`run-${id}-report.csv`);
    await pipeline(reportCsv(runs.report(id)), res);
  });

  return router;
}
