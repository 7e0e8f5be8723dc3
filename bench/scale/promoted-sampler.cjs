/**
 * Preloaded (`node -r`) into a measured process by SCALE_BENCH_PROMOTED=<file>: samples every 4 KiB
 * allocated, keeping only objects that outlive a young-generation GC (promoted, or still live), and
 * writes the sampling heap profile to <file> when the process is told to stop (SIGTERM). Plain
 * CommonJS: the measured process runs the built CLI, without a TypeScript loader.
 */
'use strict';
const { writeFileSync } = require('node:fs');
const { Session } = require('node:inspector');

const output = process.env.SCALE_BENCH_PROMOTED;
if (output) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
  process.once('SIGTERM', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) writeFileSync(output, JSON.stringify(result.profile));
      process.exit(0);
    });
  });
}
