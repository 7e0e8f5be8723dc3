/**
 * What keeps a jest worker alive after its last suite. Jest asks each worker to end when the run is over
 * and kills one still alive WORKER_END_WAIT_MS later ("A worker process has failed to exit gracefully"). The
 * per-suite check (environment.js) cannot see a handle the last suite of a worker opens after its check
 * (a reconnect timer started once the server it used is gone): no suite runs after it there. Each worker
 * notes what it holds when it is asked to end, with the suite it ran last, and notes its exit when it
 * exits by itself; the global teardown prints the notes of the workers that never exited by themselves
 * (jest killed them) and fails the run. (A note written later, from a timer, came too late on a loaded
 * machine: the kill came first.)
 */
const { appendRunNote, readRunNotes } = require('./run-notes');
const { resourceCounts, extraResources } = require('./active-resources');

const LEFTOVERS_FILE = 'VHTEST_WORKER_LEFTOVERS';
/** jest-worker's message asking a child to end (CHILD_MESSAGE_END in jest-worker's types). */
const CHILD_MESSAGE_END = 2;
/**
 * How long jest waits for a worker to be gone once asked to end, before it kills it (jest.config.js
 * `workerGracefulExitTimeout`), and so how soon a worker's JavaScript must end (its 'exit' event). A handle
 * left open keeps a worker for good; on a loaded machine one holding nothing took 1.9 s (jest-worker's
 * default, 500 ms, also cut short the teardown of processes whose JavaScript had ended in 1 ms).
 */
const WORKER_END_WAIT_MS = 5000;
function describeHandle(handle) {
  const name = handle?.constructor?.name ?? typeof handle;
  if (name === 'ChildProcess') return `ChildProcess pid ${handle.pid} (${handle.spawnfile} ${(handle.spawnargs ?? []).slice(1, 4).join(' ')})`;
  if (name === 'Server') return `Server ${JSON.stringify(handle.address?.())}`;
  if (typeof handle?.remotePort === 'number') return `${name} ${handle.localAddress}:${handle.localPort} -> ${handle.remoteAddress}:${handle.remotePort}`;
  if (handle?._handle?.constructor?.name === 'Pipe') return `${name} pipe fd ${handle._handle.fd}`;
  return `${name}${handle?.connecting ? ' (connecting)' : ''}`;
}

/**
 * Worker threads started in this jest worker and not exited yet, by the file each runs. Node stops every
 * worker thread when the process exits and waits for each: a thread busy in a blocking call can keep a
 * worker past jest's wait after its own 'exit' event ran, which no handle count shows.
 */
function trackWorkerThreads() {
  const threads = require('node:worker_threads');
  const live = new Set();
  const Original = threads.Worker;
  threads.Worker = class TrackedWorker extends Original {
    constructor(filename, options) {
      super(filename, options);
      const entry = { file: String(filename).split(/[\\/]/).slice(-2).join('/'), since: Date.now() };
      live.add(entry);
      this.once('exit', () => live.delete(entry));
    }
  };
  return () => [...live].map((entry) => `${entry.file} (${Math.round((Date.now() - entry.since) / 1000)} s)`);
}

/** Called once per worker with what the worker held before its first suite, and the suite it ran last. */
function watchWorkerEnd(baseline, lastSuite) {
  if (!process.env[LEFTOVERS_FILE] || !process.send) return;
  const liveThreads = trackWorkerThreads();
  const onMessage = (message) => {
    if (!Array.isArray(message) || message[0] !== CHILD_MESSAGE_END) return;
    // Listening keeps the IPC channel (and so the worker) alive: let go at once.
    process.removeListener('message', onMessage);
    const extra = extraResources(baseline());
    // A file operation in flight (jest's cache writes) ends by itself; noted, for a worker slow to end.
    const fileOperations = resourceCounts().get('FSReqCallback') ?? 0;
    // Stdio pipes and the IPC channel are the worker's own.
    const handles = process._getActiveHandles().map(describeHandle).filter((d) => !/pipe fd [0-3]$/.test(d));
    // A SIGTERM listener left by a suite turns jest's kill into an exit of the worker's own ('exit' runs).
    const sigterm = process.listenerCount('SIGTERM');
    appendRunNote(LEFTOVERS_FILE, { pid: process.pid, lastSuite: lastSuite(), extra, handles, sigterm, threads: liveThreads(), fileOperations });
    const askedAt = Date.now();
    // 'exit' runs only when the worker ends by itself, not when jest kills it; one that ends by itself
    // later than jest waits was killed all the same (jest sends SIGTERM then, and a listener answers it).
    process.once('exit', () => appendRunNote(LEFTOVERS_FILE, { pid: process.pid, exited: true, afterMs: Date.now() - askedAt }));
  };
  process.on('message', onMessage);
}

/** How long each worker took to exit once asked to, as one line (what the run's end looked like). */
function workerExitTimes() {
  const notes = readRunNotes(LEFTOVERS_FILE);
  const asked = notes.filter((note) => !note.exited);
  const times = notes.filter((note) => note.exited).map((note) => `${note.afterMs} ms`);
  // A worker's process ends after its 'exit' event, once Node has stopped its worker threads.
  const threads = asked.filter((note) => note.threads?.length).map((note) => `worker ${note.pid} (last suite ${note.lastSuite}) had worker threads alive: ${note.threads.join(', ')}`);
  return asked.length ? [`jest workers asked to end: ${asked.length}; exited by themselves after ${times.join(', ') || 'none'}`, ...threads].join('\n') : '';
}

/** The notes of this run's workers, as lines to print (none when every worker ended in time). */
function leftoverReport() {
  const notes = readRunNotes(LEFTOVERS_FILE);
  const exitedAfter = new Map(notes.filter((note) => note.exited).map((note) => [note.pid, note.afterMs ?? 0]));
  return notes
    .filter((note) => !note.exited && !(exitedAfter.get(note.pid) < WORKER_END_WAIT_MS))
    .map(({ pid, lastSuite, extra, handles, sigterm, fileOperations }) => {
      const ended = exitedAfter.has(pid) ? `exited ${exitedAfter.get(pid)} ms after jest asked it to end (the bound is ${WORKER_END_WAIT_MS} ms)` : 'did not exit by itself';
      const held = `${extra.join(', ') || 'nothing beyond its first suite'}${handles.length ? ` [${handles.join('; ')}]` : ''}${sigterm ? `, ${sigterm} SIGTERM listener(s)` : ''}${fileOperations ? `, ${fileOperations} file operation(s) in flight` : ''}`;
      return `jest worker ${pid} ${ended} after its last suite, ${lastSuite}; when asked to end it held ${held}`;
    });
}

module.exports = { LEFTOVERS_FILE, WORKER_END_WAIT_MS, watchWorkerEnd, leftoverReport, workerExitTimes };
