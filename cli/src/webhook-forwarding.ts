/**
 * Where accepted webhook deliveries wait to be handed to the pipeline, and who hands them over:
 * `verify-hub serve` with workers forwards them itself; with `--no-workers` the `verify-hub worker`
 * processes do, off the HTTP event loop (the hub then only receives and stores).
 */
export function webhookIngestQueueName(redisPrefix: string): string {
  // BullMQ queue names may not hold ':'.
  return `${redisPrefix.replace(/:/g, '-')}-webhook-ingest`;
}
