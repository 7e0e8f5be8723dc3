// The next suite of the bundle: it finds process.env as it was before the first one, then closes its server.
import type { Server } from 'node:net';

afterAll(() => new Promise((resolve) => ((globalThis as { leftServer?: Server }).leftServer?.close(resolve) ?? resolve(undefined))));

it('finds process.env as the bundle found it', () => {
  expect(process.env.VHTEST_FIXTURE_SET).toBeUndefined();
  expect(process.env.VHTEST_FIXTURE_REPLACED).toBeUndefined();
  expect(process.env.VHTEST_FIXTURE_KEPT).toBe('from the run');
});
