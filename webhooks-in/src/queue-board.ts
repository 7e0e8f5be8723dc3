import type { RequestHandler, Router } from 'express';
import type { Queue } from 'bullmq';
import type * as BullBoardApi from '@bull-board/api';
import type * as BullBoardAdapter from '@bull-board/api/bullMQAdapter';
import type * as BullBoardExpress from '@bull-board/express';

/**
 * Bull Board over the given BullMQ queues, served at `basePath` (the app puts the admin token in
 * front). Built on the first request: the board and what it loads (about 10 MB with its validation
 * and Redis-info libraries) are not held by a hub whose queue page nobody opens.
 */
export function queueBoard(queues: Queue[], basePath: string): RequestHandler {
  let board: Router | undefined;
  return (req, res, next) => {
    board ??= buildBoard(queues, basePath);
    board(req, res, next);
  };
}

function buildBoard(queues: Queue[], basePath: string): Router {
  const { createBullBoard } = require('@bull-board/api') as typeof BullBoardApi;
  const { BullMQAdapter } = require('@bull-board/api/bullMQAdapter') as typeof BullBoardAdapter;
  const { ExpressAdapter } = require('@bull-board/express') as typeof BullBoardExpress;
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(basePath);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter, options: { uiConfig: { boardTitle: 'verify-hub queues' } } });
  return serverAdapter.getRouter() as Router;
}
