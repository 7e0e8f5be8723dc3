import { isAbsolute, relative } from 'node:path';
import { parseScope } from '@verify-hub/core';
import { categoryOutput, recheckOutputs, resolveOptions, type CategoryFile, type SplitFormat } from '@verify-hub/connector-file';
import type { RunRecord } from '@verify-hub/sync-jobs';

export type OutputKind = 'cleaned' | 'removed' | 'summary' | 'rejected';
export const OUTPUT_KINDS = ['cleaned', 'removed', 'summary', 'rejected'] as const satisfies readonly OutputKind[];

/** Re-checks of re-checks are followed this far back to the upload (a loop cannot occur, but a bound costs nothing). */
const MAX_RECHECK_DEPTH = 20;

/** The uploaded file a `file:<path>` run reads, when it lies inside the upload folder (nothing else is served). */
export function uploadedInput(run: RunRecord, uploadDir: string): string | undefined {
  if (run.platform !== 'file') return undefined;
  const scope = parseScope(run.scope);
  if (scope.kind !== 'file' || !scope.value) return undefined;
  const rel = relative(uploadDir, scope.value);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return scope.value;
}

/**
 * The input file a file run reads, through the runs it re-checks (`recheck:<run id>`): the run that
 * started from the file has its path in its scope. Undefined for a platform run.
 */
export async function inputOfFileRun(run: RunRecord, getRun: (id: string) => Promise<RunRecord | undefined>): Promise<{ input: string; first: RunRecord } | undefined> {
  let current: RunRecord | undefined = run;
  for (let depth = 0; current && depth < MAX_RECHECK_DEPTH; depth++) {
    if (current.platform !== 'file') return undefined;
    const scope = parseScope(current.scope);
    if (scope.kind !== 'recheck') return scope.kind === 'file' && scope.value ? { input: scope.value, first: current } : undefined;
    current = scope.value ? await getRun(scope.value) : undefined;
  }
  return undefined;
}

/** The upload a file run reads (see inputOfFileRun), when it lies inside the upload folder (nothing else is served). */
export async function uploadOfRun(run: RunRecord, uploadDir: string, getRun: (id: string) => Promise<RunRecord | undefined>): Promise<string | undefined> {
  const found = await inputOfFileRun(run, getRun);
  return found && uploadedInput(found.first, uploadDir);
}

/**
 * Where the file connector writes a run's outputs: its own defaults beside the input (the hub never
 * overrides them), tagged with the run's id for a re-check (which never writes over the first files).
 */
export function outputPath(input: string, kind: OutputKind, run?: RunRecord): string {
  const resolved = outputsOf(input, run);
  return { cleaned: resolved.output, removed: resolved.removedOutput, summary: resolved.summaryOutput, rejected: resolved.rejectedOutput }[kind];
}

/** Where the file connector wrote a run's rows of one category or flag in one format (`split`, see categoryOutput). */
export function categoryPath(input: string, name: CategoryFile, format: SplitFormat, run?: RunRecord): string {
  return categoryOutput(outputsOf(input, run), name, format);
}

function outputsOf(input: string, run?: RunRecord) {
  const resolved = resolveOptions({ input });
  return run && parseScope(run.scope).kind === 'recheck' ? recheckOutputs(resolved, run.id) : resolved;
}
