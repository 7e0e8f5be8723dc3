import { createServer, type Server, type Socket } from 'node:net';
import { SmtpNetworkError, SmtpSession, type SmtpSessionOptions } from '../../engine/src/smtp-session';
import { SmtpPeer } from '../fakes/mail-peers';
import { until } from '../setup/until';

/** Open TCP sockets of this process, both ends (node's own count: what keeps a jest worker alive). */
const tcpSockets = () => process.getActiveResourcesInfo().filter((type) => type === 'TCPSocketWrap').length;

/**
 * Every way an SMTP session ends early closes its socket: a probe that leaves one open keeps the engine's
 * process (and a jest worker) alive, and on a busy engine runs out of file descriptors.
 */
describe('SmtpSession closes its socket on every early end', () => {
  let peer: SmtpPeer;
  let port: number;
  const options = (extra: Partial<SmtpSessionOptions> = {}): SmtpSessionOptions => ({ host: '127.0.0.1', port, connectTimeoutMs: 2000, commandTimeoutMs: 2000, ...extra });

  beforeAll(async () => {
    peer = new SmtpPeer();
    port = await peer.start();
  });
  afterAll(() => peer.stop());

  it('a connection that cannot even be attempted (a port out of range) leaves no socket behind', async () => {
    const before = tcpSockets();
    await expect(SmtpSession.open(options({ port: 70_000 }))).rejects.toThrow(/Port should be >= 0 and < 65536/);
    // A socket's handle closes on a later turn of the event loop; a lost one never does.
    await until(() => tcpSockets() === before, 10_000, 'the socket of the failed attempt to close');
  });

  it('the caller’s deadline reached while connecting ends the attempt and closes its socket', async () => {
    const before = tcpSockets();
    const controller = new AbortController();
    const opening = SmtpSession.open(options({ signal: controller.signal }));
    controller.abort(); // the TCP connect is under way: it completes on a later turn of the event loop
    await expect(opening).rejects.toMatchObject({ kind: 'timeout', message: 'verification deadline reached' });
    // The peer's end closes once it reads the client's FIN.
    await until(() => tcpSockets() === before, 10_000, 'both ends of the aborted connection to close');
  });

  it('a session bound to a deadline that has already passed ends at once', async () => {
    const before = tcpSockets();
    const { session } = await SmtpSession.open(options());
    const controller = new AbortController();
    controller.abort();
    session.bind(controller.signal);
    expect(session.usable).toBe(false);
    await expect(session.command('NOOP')).rejects.toBeInstanceOf(SmtpNetworkError);
    await until(() => tcpSockets() === before, 10_000, 'both ends of the ended session to close');
  });

  describe('a server that agrees to STARTTLS and then never does the handshake', () => {
    let silent: Server;
    let silentPort: number;
    const accepted = new Set<Socket>();

    beforeAll(async () => {
      silent = createServer((socket) => {
        accepted.add(socket);
        socket.on('close', () => accepted.delete(socket));
        socket.write('220 silent ready\r\n');
        socket.on('data', (data) => {
          if (/^STARTTLS/im.test(String(data))) socket.write('220 go ahead\r\n');
          else if (/^EHLO/im.test(String(data))) socket.write('250-silent\r\n250 STARTTLS\r\n');
        });
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      silentPort = (silent.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    const startHandshake = async (signal?: AbortSignal) => {
      const { session } = await SmtpSession.open(options({ port: silentPort, commandTimeoutMs: 300, signal }));
      await session.command('EHLO verifier.example');
      expect((await session.command('STARTTLS')).code).toBe(220);
      return { session, handshake: session.startTls('mx.example') };
    };

    it('the handshake timeout closes the connection', async () => {
      const before = tcpSockets();
      const { handshake } = await startHandshake();
      await expect(handshake).rejects.toMatchObject({ kind: 'timeout', message: 'TLS handshake timed out' });
      await until(() => accepted.size === 0 && tcpSockets() === before, 10_000, 'both ends of the timed-out handshake to close');
    });

    it('the caller’s deadline ends the handshake at once, not at the command timeout', async () => {
      const before = tcpSockets();
      const controller = new AbortController();
      const { handshake } = await startHandshake(controller.signal);
      controller.abort();
      await expect(handshake).rejects.toMatchObject({ kind: 'timeout', message: 'verification deadline reached' });
      await until(() => accepted.size === 0 && tcpSockets() === before, 10_000, 'both ends of the aborted handshake to close');
    });
  });
});
