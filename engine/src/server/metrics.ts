import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The engine server's Prometheus metrics, in a registry of its own (several servers can share a process). */
export class EngineMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({ name: 'engine_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['route', 'status'] as const, registers: [this.registry] });
  readonly verifications = new Counter({ name: 'engine_verifications_total', help: 'Verifications answered, by risk', labelNames: ['risk'] as const, registers: [this.registry] });
  readonly errors = new Counter({ name: 'engine_errors_total', help: 'Requests that failed inside the engine (5xx)', registers: [this.registry] });
  readonly latency = new Histogram({
    name: 'engine_verification_duration_seconds',
    help: 'Time to verify one address',
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({ name: 'engine_verifications_in_flight', help: 'Verifications in progress', registers: [this.registry] });
  readonly rejected = new Counter({ name: 'engine_rejected_total', help: 'Requests refused before verification, by code', labelNames: ['code'] as const, registers: [this.registry] });
}
