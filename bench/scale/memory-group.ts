/**
 * A memory cgroup around one measured process: the limit a container runtime sets from
 * deploy/compose.yaml's `resources.limits.memory`. Node gives V8 a heap sized from the memory the
 * process may use (`process.constrainedMemory()`), and V8 sizes its young generation and its
 * old-generation growing factor from that heap: the same code holds far less garbage in a container
 * with a limit than on an unconstrained 24 GB host. Needs a writable memory controller (root, cgroup v1
 * or v2); elsewhere the measurement is skipped with the reason.
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MemoryGroup {
  /** The command that starts `command args` inside the group (a shell moves itself in, then execs). */
  wrap(command: string, args: string[]): { command: string; args: string[] };
  /** Removes the group; its processes must have exited. */
  remove(): void;
}

/** Where this process's memory cgroup lives, and the file that sets a child's limit. */
function ownMemoryCgroup(): { dir: string; limitFile: string } | undefined {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const v1 = lines.map((l) => /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/.exec(l)).find(Boolean);
  if (v1) return { dir: join('/sys/fs/cgroup/memory', v1[1]!), limitFile: 'memory.limit_in_bytes' };
  const v2 = lines.map((l) => /^0::(.*)$/.exec(l)).find(Boolean);
  if (v2) return { dir: join('/sys/fs/cgroup', v2[1]!), limitFile: 'memory.max' };
  return undefined;
}

export function createMemoryGroup(limitBytes: number, name: string): MemoryGroup | { unavailable: string } {
  const own = ownMemoryCgroup();
  if (!own) return { unavailable: 'no memory cgroup in /proc/self/cgroup' };
  const dir = join(own.dir, name);
  try {
    mkdirSync(dir);
  } catch (error) {
    return { unavailable: `cannot create ${dir} (${(error as NodeJS.ErrnoException).code})` };
  }
  try {
    writeFileSync(join(dir, own.limitFile), String(limitBytes));
  } catch (error) {
    rmdirSync(dir);
    return { unavailable: `cannot set ${own.limitFile} (${(error as NodeJS.ErrnoException).code})` };
  }
  return {
    wrap: (command, args) => ({ command: '/bin/sh', args: ['-c', `echo $$ > '${join(dir, 'cgroup.procs')}' && exec "$0" "$@"`, command, ...args] }),
    remove: () => rmdirSync(dir),
  };
}
