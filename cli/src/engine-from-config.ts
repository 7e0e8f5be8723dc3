import { ConfigError, createLogger, EngineClient, type Config, type Verifier } from '@verify-hub/core';
import type * as Engine from '@verify-hub/engine';

export interface ChosenEngine {
  verifier: Verifier;
  /** `remote` when ENGINE_URL is set, else the local engine in this process. */
  kind: 'remote' | 'local';
  /** Safe to print: the URL without credentials, or "local engine". */
  label: string;
  local?: Engine.LocalEngine;
}

/**
 * The engine a command uses: the HTTP engine at ENGINE_URL (its key in ENGINE_API_KEY), or, with no
 * ENGINE_URL, the local engine in-process (no account, no server).
 */
export function engineFromConfig(config: Config): ChosenEngine {
  if (config.ENGINE_URL) {
    if (!config.ENGINE_API_KEY) throw new ConfigError('ENGINE_API_KEY', 'is required when ENGINE_URL is set');
    const verifier = new EngineClient({
      baseUrl: config.ENGINE_URL,
      apiKey: config.ENGINE_API_KEY,
      timeoutMs: config.ENGINE_TIMEOUT_MS,
      // stderr: stdout carries the command's own output (the clean summary, --json answers).
      logger: createLogger({ name: 'engine-client', level: config.LOG_LEVEL, destination: process.stderr }),
    });
    return { verifier, kind: 'remote', label: `engine at ${config.ENGINE_URL}` };
  }
  if (config.ENGINE_API_KEY) throw new ConfigError('ENGINE_URL', 'is required when ENGINE_API_KEY is set (or unset the key to use the local engine)');
  // Loaded only here: a command using a remote engine does not hold the local one's lists and server.
  const { LocalEngine, engineOptionsFromConfig } = require('@verify-hub/engine') as typeof Engine;
  const local = new LocalEngine(engineOptionsFromConfig(config));
  return { verifier: local, kind: 'local', label: 'local engine (in-process)', local };
}
