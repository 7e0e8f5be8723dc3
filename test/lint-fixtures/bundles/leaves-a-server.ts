// A bundled suite that leaves a listening server behind (closed by the next fixture, so jest can exit).
import { createServer } from 'node:net';

it('starts a server and does not close it', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (globalThis as { leftServer?: unknown }).leftServer = server;
  process.env.VHTEST_FIXTURE_SET = 'by the first suite';
  process.env = { ...process.env, VHTEST_FIXTURE_REPLACED: 'yes' };
});
