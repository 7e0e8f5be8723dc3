import type { Router } from 'express';
import type { Queue } from 'bullmq';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';

/** Bull Board over the given BullMQ queues, served at `basePath` (the app puts the admin token in front). */
export function queueBoard(queues: Queue[], basePath: string): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(basePath);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter, options: { uiConfig: { boardTitle: 'verify-hub queues' } } });
  return serverAdapter.getRouter() as Router;
}
