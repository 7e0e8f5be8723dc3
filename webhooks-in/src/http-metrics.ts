import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RequestHandler } from 'express';

/** The hub's own Prometheus metrics: HTTP requests and webhook events. One registry per app. */
export class HubMetrics {
  readonly registry = new Registry();
  readonly requestDuration = new Histogram({
    name: 'verify_hub_http_request_duration_seconds',
    help: 'HTTP request duration, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly webhookEvents = new Counter({
    name: 'verify_hub_webhook_events_total',
    help: 'Webhook events by platform and outcome: accepted (stored at receipt), then queued or duplicate (handed to the pipeline)',
    labelNames: ['platform', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly webhookRejected = new Counter({
    name: 'verify_hub_webhook_rejected_total',
    help: 'Webhook deliveries refused, by platform and HTTP status',
    labelNames: ['platform', 'status'] as const,
    registers: [this.registry],
  });
  readonly hookDeliveries = new Counter({
    name: 'verify_hub_completion_webhook_deliveries_total',
    help: 'Completion-webhook delivery attempts, by outcome (delivered, retry, gave_up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** Times every request under its route pattern (never the raw URL: Mailchimp's secret is in the path). */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const end = this.requestDuration.startTimer();
      res.once('finish', () => {
        const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : req.baseUrl || 'unmatched';
        end({ method: req.method, route, status_code: String(res.statusCode) });
      });
      next();
    };
  }

  /**
   * Exposition text of the pipeline's registry followed by the hub's own metrics. A family both have
   * (process metrics, when both collect them in one process) is served once, from the pipeline's.
   */
  async exposition(pipeline?: Registry): Promise<string> {
    if (!pipeline) return this.registry.metrics();
    const theirs = new Set(pipeline.getMetricsAsArray().map((m) => m.name));
    const own = await Promise.all(
      this.registry
        .getMetricsAsArray()
        .filter((m) => !theirs.has(m.name))
        .map((m) => this.registry.getSingleMetricAsString(m.name)),
    );
    return `${await pipeline.metrics()}\n${own.join('\n')}\n`;
  }
}
