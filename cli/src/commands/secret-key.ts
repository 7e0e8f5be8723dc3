import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { InputError, SecretBox } from '@verify-hub/core';
import { EXIT } from '../command';

/**
 * `verify-hub secret-key rotate --new-key-file <file>`: seals everything HUB_SECRET_KEY protects (stored
 * platform credentials, completion-hook secrets) again under a new key. The new key comes from a file
 * or stdin, never the command line (which other users of the machine can read). Run it with the hub
 * and the workers stopped, then set HUB_SECRET_KEY to the new key and start them (SECURITY.md).
 */
export function register(program: Command): void {
  const secretKey = program.command('secret-key').description('Manage HUB_SECRET_KEY, the key that seals stored platform credentials');
  secretKey
    .command('rotate')
    .description('Seal stored platform credentials and completion-hook secrets again under a new HUB_SECRET_KEY (stop the hub and workers first; needs HUB_SECRET_KEY, REDIS_URL)')
    .requiredOption('--new-key-file <file>', 'a file holding the new key (32+ characters, one line), or - for stdin')
    .option('--json', 'print JSON')
    .action(async (options: { newKeyFile: string; json?: boolean }) => {
      process.exitCode = await rotate(options);
    });
}

async function readNewKey(file: string): Promise<string> {
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8').catch(() => Promise.reject(new InputError('--new-key-file', `cannot read ${file}`)));
  const key = text.trim();
  if (key.length < 32 || /\s/.test(key)) throw new InputError('--new-key-file', 'must hold the new key: one line of at least 32 characters, no spaces');
  return key;
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

async function rotate(options: { newKeyFile: string; json?: boolean }): Promise<number> {
  const { loadHubConfig } = await import('../platforms');
  const { openConnectionStore, hubKeyPrefix } = await import('../stored-connections');
  const { HookStore } = await import('@verify-hub/webhooks-in');
  const config = loadHubConfig();
  if (!config.HUB_SECRET_KEY) throw new InputError('HUB_SECRET_KEY', 'must be set to the current key: rotation opens what it sealed');
  const newKey = await readNewKey(options.newKeyFile);
  if (newKey === config.HUB_SECRET_KEY) throw new InputError('--new-key-file', 'holds the current HUB_SECRET_KEY: give a new key');
  const current = new SecretBox(config.HUB_SECRET_KEY);
  const next = new SecretBox(newKey);
  const { redis, store } = openConnectionStore(config);
  try {
    const connections = await store.reseal(next);
    const hooks = await new HookStore(redis, hubKeyPrefix(config), current).reseal(next);
    const outcome = { connections, hooks };
    console.log(
      options.json
        ? JSON.stringify(outcome, null, 2)
        : [
            `connections: ${connections.resealed} sealed under the new key${connections.already ? `, ${connections.already} already were` : ''}`,
            `completion hooks: ${hooks.resealed} sealed under the new key${hooks.already ? `, ${hooks.already} already were` : ''}`,
            'Now set HUB_SECRET_KEY to the new key wherever the hub and workers run, and start them.',
          ].join('\n'),
    );
    return EXIT.ok;
  } finally {
    await redis.quit();
  }
}
