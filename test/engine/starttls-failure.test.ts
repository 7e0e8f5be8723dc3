import { createServer, type Server, type Socket } from 'node:net';
import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import { engineFor } from './helpers';

/**
 * A mail server that offers STARTTLS but answers the TLS handshake with garbage (a broken middlebox or
 * an expired TLS stack, as seen in the wild): the engine retries once in plain text and still gets its answer.
 */
describe('STARTTLS offered but broken', () => {
  let world: MailWorld;
  let server: Server;
  const sockets = new Set<Socket>();
  const conversations: string[][] = [];

  beforeAll(async () => {
    world = await startMailWorld();
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      const lines: string[] = [];
      conversations.push(lines);
      let tlsStarted = false;
      socket.write('220 broken-tls.acme-mail.com ESMTP\r\n');
      let buffer = '';
      socket.on('data', (chunk) => {
        if (tlsStarted) {
          socket.end('this is not TLS\r\n');
          return;
        }
        buffer += chunk.toString('latin1');
        let i: number;
        while ((i = buffer.indexOf('\r\n')) >= 0) {
          const line = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          lines.push(line);
          const verb = line.split(/[ :]/)[0]!.toUpperCase();
          if (verb === 'EHLO') socket.write('250-broken-tls.acme-mail.com\r\n250-STARTTLS\r\n250 8BITMIME\r\n');
          else if (verb === 'STARTTLS') {
            socket.write('220 2.0.0 Ready to start TLS\r\n');
            tlsStarted = true;
          } else if (verb === 'MAIL') socket.write('250 2.1.0 Ok\r\n');
          else if (verb === 'RCPT') socket.write(line.includes('john@') ? '250 2.1.5 Ok\r\n' : '550 5.1.1 User unknown\r\n');
          else if (verb === 'QUIT') socket.end('221 2.0.0 Bye\r\n');
          else socket.write('502 5.5.2 Command not recognized\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await world.stop();
  });

  it('falls back to a plain-text session and reports starttls false', async () => {
    const port = (server.address() as { port: number }).port;
    const engine = engineFor(world, { smtpPort: port });
    const v = await engine.verify('john@acme-mail.com');
    expect(v).toMatchObject({ risk: 'safe', reason: 'deliverable', checks: { starttls: false, smtpConnect: true, smtp: true, catchAll: false } });
    expect(conversations).toHaveLength(2);
    expect(conversations[0]).toEqual(['EHLO verifier.acme-tools.com', 'STARTTLS']);
    expect(conversations[1]!.map((l) => l.split(/[ :]/)[0])).toEqual(['EHLO', 'MAIL', 'RCPT', 'RCPT', 'QUIT']);
  });
});
