/**
 * The body of `verify-hub serve`'s webhook forwarder thread (started by webhook-forwarding.ts): its own
 * pipeline from serve's configuration, with its own Redis connections, hands the stored deliveries to
 * `enqueueEvent`, so none of that work runs on the hub's HTTP event loop. `stop` from the hub closes it:
 * the delivery in hand is finished, the rest stays in the queue for the next forwarder.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '@verify-hub/core';
import { startWebhookForwarder } from '@verify-hub/webhooks-in';
import { pipelineSettings, readyPipeline } from './pipeline-settings';
import { webhookIngestOptions, type ForwarderThreadData, type ForwarderThreadMessage } from './webhook-forwarding';

async function forwardUntilStopped(): Promise<void> {
  const port = parentPort!;
  const send = (message: ForwarderThreadMessage) => port.postMessage(message);
  const { config } = workerData as ForwarderThreadData;
  const logger = createLogger({ name: 'webhook-forwarder', level: config.LOG_LEVEL });
  // serve's pipeline settings without its connectors or engine: handing events over needs neither.
  const pipeline = await readyPipeline(pipelineSettings(config));
  const forwarder = startWebhookForwarder(pipeline.redis, pipeline, webhookIngestOptions(config), logger, (counts) => send({ forwarded: counts }));
  port.once('message', () => {
    void forwarder
      .close()
      .then(() => pipeline.close())
      .then(() => send({ stopped: true }));
  });
  send({ ready: true });
}

// A failure ends the thread as an uncaught error: the hub's 'error' listener reports it.
void forwardUntilStopped();
