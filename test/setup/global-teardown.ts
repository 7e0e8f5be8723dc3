export default async function globalTeardown(): Promise<void> {
  (globalThis as { __verifyHubStopRedis?: () => void }).__verifyHubStopRedis?.();
}
