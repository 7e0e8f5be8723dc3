import { createHash } from 'node:crypto';

/** What a Redis client needs to run a Lua script (ioredis's Redis and Cluster both have it; core names no client). */
export interface ScriptRunner {
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

const shas = new Map<string, string>();
const shaOf = (lua: string): string => {
  let sha = shas.get(lua);
  if (!sha) shas.set(lua, (sha = createHash('sha1').update(lua).digest('hex')));
  return sha;
};

/**
 * Runs a Lua script by its SHA1 (EVALSHA), sending its text (EVAL) only where Redis does not have it yet
 * (a new server, a restart, a cluster node asked first): the engine limiter alone runs a script of about a
 * kilobyte once per verification, and EVAL sends that text and has Redis hash it on every call. The
 * error of a script that ran and failed is the caller's, as with EVAL.
 */
export async function runScript(redis: ScriptRunner, lua: string, numKeys: number, ...args: (string | number)[]): Promise<unknown> {
  try {
    return await redis.evalsha(shaOf(lua), numKeys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(lua, numKeys, ...args);
  }
}
