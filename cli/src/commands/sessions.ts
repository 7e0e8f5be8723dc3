import type { Command } from 'commander';
import { InputError, loadConfig } from '@verify-hub/core';
import { EXIT } from '../command';

/**
 * `verify-hub sessions revoke --all`: ends every dashboard session and every MCP sign-in (codes, access and
 * refresh tokens) of the hub at once, on every hub process, without a restart (webhooks-in's
 * credential-binding.ts: one INCR in Redis). The admin token stays valid; to end that too, change
 * HUB_ADMIN_TOKEN and restart, which also ends everything issued under the old one.
 */
export function register(program: Command): void {
  const sessions = program.command('sessions').description("The hub's dashboard sessions and MCP sign-ins");
  sessions
    .command('revoke')
    .description('End every dashboard session and MCP token of the hub now, on every hub process (needs REDIS_URL; the admin token stays valid)')
    .option('--all', 'every session and token (required: they are revoked together)')
    .option('--json', 'print JSON')
    .action(async (options: { all?: boolean; json?: boolean }) => {
      process.exitCode = await revoke(options);
    });
}

async function revoke(options: { all?: boolean; json?: boolean }): Promise<number> {
  if (!options.all) throw new InputError('--all', 'is required: sessions and MCP tokens are revoked all together');
  const config = loadConfig(process.env);
  const { createRedis } = await import('@verify-hub/sync-jobs');
  const { revokeAllSignIns } = await import('@verify-hub/webhooks-in');
  const { hubKeyPrefix } = await import('../stored-connections');
  const redis = createRedis(config.REDIS_URL);
  try {
    const generation = await revokeAllSignIns(redis, hubKeyPrefix(config));
    const summary = 'Revoked every dashboard session and MCP token of this hub: browsers and assistants sign in again (the admin token is unchanged).';
    console.log(options.json ? JSON.stringify({ revoked: 'all', generation }) : summary);
    return EXIT.ok;
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}
