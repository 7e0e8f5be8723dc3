import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const run = globalThis as { __verifyHubStopRedis?: () => void; __verifyHubRunDir?: string };
  run.__verifyHubStopRedis?.();
  if (run.__verifyHubRunDir) rmSync(run.__verifyHubRunDir, { recursive: true, force: true });
}
