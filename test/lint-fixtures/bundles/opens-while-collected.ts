// A suite that opens a server in its describe body, while jest collects the tests, and closes it after.
import { createServer } from 'node:net';

describe('a suite that listens at collection', () => {
  const server = createServer().listen(0, '127.0.0.1');
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  it('passes by itself', () => expect(server).toBeDefined());
});
