import { InputError, parseScope, runName, type Connector, type Scope } from '@verify-hub/core';
import type { RunRecord, StartRunRequest } from './contracts';
import type { Pager } from './pager';
import type { PipelineContext } from './pipeline-context';
import type { RunReconciler } from './run-reconciler';
import { promoteParked } from './run-pauses';
import { USER_PAUSE_REASON } from './run-store';

/** How long a run's start waits for its connector's total or scope name before going on without it. */
const CONNECTOR_QUESTION_MS = 5000;
const RUN_NAME_MAX = 200;

/** What a user (CLI, API, dashboard, schedule) does to runs: start, pause, resume, cancel, re-check. */
export class RunCommands {
  constructor(private readonly ctx: PipelineContext, private readonly pager: Pager, private readonly reconciler: RunReconciler) {}

  async start(request: StartRunRequest): Promise<RunRecord> {
    await this.checkRequest(request);
    const [expectedTotal, name, connectionLabel] = await Promise.all([this.expectedTotal(request), this.runNameOf(request), this.connectionLabelOf(request)]);
    const run = await this.ctx.store.create({ ...request, name }, { expectedTotal, connectionLabel });
    await this.pager.enqueue(run.id, 0);
    return run;
  }

  async cancel(id: string, reason = 'cancelled by a user'): Promise<RunRecord> {
    const { store, queues } = this.ctx;
    const ok = await store.transition(id, 'cancelled', ['queued', 'running', 'paused'], reason, { finishedAt: new Date().toISOString() });
    const run = await this.mustGet(id);
    if (!ok) throw new InputError('id', `run ${id} is ${run.status}; only queued, running or paused runs can be cancelled`);
    // Parked chunks of a cancelled run are dropped; waiting ones see the status and end at once.
    for (const jobId of await store.takeParked(id)) await (await queues.chunks.getJob(jobId))?.remove().catch(() => undefined);
    await this.ctx.announceFinished(id);
    return (await store.get(id))!;
  }

  /**
   * A user's pause: chunks not yet verified park themselves, the pager stops before its next page (a
   * file run stops between pages), and nothing resumes it but `resume` (no `resumeAt`).
   */
  async pause(id: string): Promise<RunRecord> {
    const { store } = this.ctx;
    const run = await this.mustGet(id);
    if (!(await store.transition(id, 'paused', ['queued', 'running'], USER_PAUSE_REASON))) {
      throw new InputError('id', `run ${id} is ${(await store.get(id))?.status ?? run.status}; only a queued or running run can be paused`);
    }
    this.ctx.runLog(run).info('run paused by a user');
    return (await store.get(id))!;
  }

  /** Resumes a paused run; `maxCredits` raises (or sets) the run's credit cap first. */
  async resume(id: string, changes: { maxCredits?: number } = {}): Promise<RunRecord> {
    const { store, queues } = this.ctx;
    const run = await this.mustGet(id);
    if (run.status === 'running' || run.status === 'queued') {
      // Nothing to unpause, but a run that seems stuck gets what it is missing (a lost page or pager), or completes.
      await this.reconciler.reconcileRun(id);
      return (await store.get(id))!;
    }
    if (run.status !== 'paused') throw new InputError('id', `run ${id} is ${run.status}; only a paused run can be resumed`);
    if (changes.maxCredits !== undefined) await store.setFields(id, { options: JSON.stringify({ ...run.options, maxCredits: changes.maxCredits }) });
    // A new resume epoch: a chunk that started before it and is refused now (the old token) retries instead of pausing again.
    await store.newResumeEpoch(id);
    if (!(await store.transition(id, 'running', ['paused']))) throw new InputError('id', `run ${id} changed state; try again`);
    // Credits still held for chunks that are gone (killed while the run was paused) go back to the cap.
    await this.reconciler.releaseLostReservations(id);
    for (const jobId of await store.takeParked(id)) {
      const job = await queues.chunks.getJob(jobId);
      if (job) await promoteParked(job);
    }
    const progress = await store.progress(id);
    if (!progress.pagingDone) await this.pager.enqueue(id, progress.pages);
    else await this.ctx.completeIfDone(id);
    return (await store.get(id))!;
  }

  async recheckUnknowns(id: string): Promise<RunRecord> {
    const run = await this.mustGet(id);
    return this.start({ platform: run.platform, connectionId: run.connectionId, scope: `recheck:${id}`, name: `Re-check of ${runName(run)}`, options: { ...run.options, maxCredits: undefined } });
  }

  async mustGet(id: string): Promise<RunRecord> {
    const run = await this.ctx.store.get(id);
    if (!run) throw new InputError('id', `no run ${id}`);
    return run;
  }

  /** What a run needs before it is started or scheduled; InputError naming the field otherwise. */
  async checkRequest(request: StartRunRequest): Promise<void> {
    const { registry } = this.ctx;
    if (!request.platform) throw new InputError('platform', 'is required');
    if (!registry.has(request.platform)) throw new InputError('platform', `no connector registered for "${request.platform}" (known: ${registry.platforms().join(', ')})`);
    if (typeof request.scope !== 'string' || !request.scope.trim()) throw new InputError('scope', 'is required (for example all, list:<id>)');
    const max = request.options?.maxCredits;
    if (max !== undefined && (!Number.isInteger(max) || max < 0)) throw new InputError('options.maxCredits', 'must be a whole number >= 0');
    const total = request.expectedTotal;
    if (total !== undefined && (!Number.isInteger(total) || total < 0)) throw new InputError('expectedTotal', 'must be a whole number >= 0');
    if (request.connectionId) {
      const connection = await this.ctx.connectionStore().get(request.connectionId);
      if (!connection) throw new InputError('connectionId', `no stored connection "${request.connectionId}"`);
      // A run reads its connection with the platform's connector: a connection of another platform (an
      // upload's, which starts only from its upload) is never run under a name it does not have.
      if (connection.platform !== request.platform) throw new InputError('connectionId', `connection "${request.connectionId}" belongs to ${connection.platform}, not ${request.platform}`);
    }
    await this.checkScope(request);
  }

  /**
   * The connector says whether it can read the scope, so an invalid one is refused at start (400, exit
   * 2) rather than failing the run later: the platform judges its form, then the connection's connector
   * (which audience `all` means, ...). `recheck:<run>` is the pipeline's own. A connector that cannot be
   * built here (no token yet...) fails its run as it always did: only the scope is judged now.
   */
  private async checkScope(request: StartRunRequest): Promise<void> {
    const scope = parseScope(request.scope);
    if (scope.kind === 'recheck') return;
    this.ctx.registry.checkScope(request.platform, scope);
    let connector: Connector;
    try {
      connector = await this.ctx.connectorFor(request.platform, request.connectionId);
    } catch {
      return;
    }
    connector.checkScope?.(scope);
  }

  /**
   * Asks the run's connector something cheap about its scope at start (its total, its name), within a
   * few seconds; no answer, a failure or a connector that cannot be built only means "not known".
   */
  private async askConnector<T>(request: StartRunRequest, ask: (connector: Connector, scope: Scope) => Promise<T | undefined> | undefined): Promise<T | undefined> {
    const scope = parseScope(request.scope);
    if (scope.kind === 'recheck') return undefined;
    try {
      const connector = await this.ctx.connectorFor(request.platform, request.connectionId);
      const asked = ask(connector, scope);
      if (!asked) return undefined;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), CONNECTOR_QUESTION_MS)));
      return await Promise.race([asked.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
    } catch {
      return undefined;
    }
  }

  /** The progress denominator, when the connector can give it cheaply (a file's rows, a platform's list total). */
  private async expectedTotal(request: StartRunRequest): Promise<number | undefined> {
    if (request.expectedTotal !== undefined) return request.expectedTotal;
    const total = await this.askConnector(request, (connector, scope) => connector.estimateTotal?.(scope));
    return typeof total === 'number' && Number.isFinite(total) && total >= 0 ? Math.floor(total) : undefined;
  }

  /**
   * The run's name for people: the caller's (a file's name as uploaded), else what the connector calls
   * the scope (an audience's name), else none (shown as the scope in words, core's `runName`).
   */
  private async runNameOf(request: StartRunRequest): Promise<string | undefined> {
    // One line of at most 200 characters: a name is shown in tables and on the terminal.
    const tidy = (text: unknown) => (typeof text === 'string' ? text.replace(/\p{Cc}+/gu, ' ').trim().slice(0, RUN_NAME_MAX) : '') || undefined;
    return tidy(request.name) ?? tidy(await this.askConnector(request, (connector, scope) => connector.describeScope?.(scope)));
  }

  /** The connection's label now (a file upload's connection is the file: its label is not shown twice). */
  private async connectionLabelOf(request: StartRunRequest): Promise<string | undefined> {
    const { connections } = this.ctx;
    if (!request.connectionId || request.platform === 'file' || !connections) return undefined;
    return (await connections.get(request.connectionId).catch(() => undefined))?.label || undefined;
  }
}
