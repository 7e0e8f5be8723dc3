import { isAbsolute, relative } from 'node:path';
import { parseScope } from '@verify-hub/core';
import { resolveOptions } from '@verify-hub/connector-file';
import type { RunRecord } from '@verify-hub/sync-jobs';

export type OutputKind = 'cleaned' | 'removed' | 'summary';

/** The uploaded file a `file:<path>` run reads, when it lies inside the upload folder (nothing else is served). */
export function uploadedInput(run: RunRecord, uploadDir: string): string | undefined {
  if (run.platform !== 'file') return undefined;
  const scope = parseScope(run.scope);
  if (scope.kind !== 'file' || !scope.value) return undefined;
  const rel = relative(uploadDir, scope.value);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return scope.value;
}

/** Where the file connector writes a run's outputs: its own defaults beside the input (the hub never overrides them). */
export function outputPath(input: string, kind: OutputKind): string {
  const resolved = resolveOptions({ input });
  return kind === 'cleaned' ? resolved.output : kind === 'removed' ? resolved.removedOutput : resolved.summaryOutput;
}
