import { ensureRedis } from './redis';

/** Makes sure every test file sees a live Redis in REDIS_URL (starting one if none answers). */
export default async function globalSetup(): Promise<void> {
  const redis = await ensureRedis();
  process.env.REDIS_URL = redis.url;
  (globalThis as { __verifyHubStopRedis?: () => void }).__verifyHubStopRedis = redis.stop;
}
