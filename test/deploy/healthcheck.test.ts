import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The image's HEALTHCHECK script (plain JavaScript: it runs in the image with nothing but node).
const { probeTarget, findVerifyHubArgs } = require('../../deploy/healthcheck.js') as {
  probeTarget(args: string[], env: Record<string, string | undefined>): { command: string; url: string } | null;
  findVerifyHubArgs(procDir?: string): string[] | null;
};

describe('deploy/healthcheck.js: each role is probed on its own port', () => {
  const imageEnv = { PORT: '8080', ENGINE_PORT: '8081', VERIFY_HUB_WORKER_HEALTH_PORT: '8082' };

  it('serve: PORT, or --port', () => {
    expect(probeTarget(['serve'], imageEnv)?.url).toBe('http://127.0.0.1:8080/healthz');
    expect(probeTarget(['serve', '--port', '9000'], imageEnv)?.url).toBe('http://127.0.0.1:9000/healthz');
    expect(probeTarget(['serve', '--no-workers', '--port=9001'], imageEnv)?.url).toBe('http://127.0.0.1:9001/healthz');
    expect(probeTarget(['serve'], {})?.url).toBe('http://127.0.0.1:8080/healthz');
  });

  it('engine: ENGINE_PORT, not PORT; --port wins; its keys subcommands serve nothing', () => {
    expect(probeTarget(['engine'], imageEnv)?.url).toBe('http://127.0.0.1:8081/healthz');
    expect(probeTarget(['engine'], { PORT: '8080' })?.url).toBe('http://127.0.0.1:8081/healthz');
    expect(probeTarget(['engine', '--port', '7000'], imageEnv)?.url).toBe('http://127.0.0.1:7000/healthz');
    expect(probeTarget(['engine', 'keys', 'list'], imageEnv)).toBeNull();
  });

  it('worker: VERIFY_HUB_WORKER_HEALTH_PORT or --health-port; none without either', () => {
    expect(probeTarget(['worker'], imageEnv)?.url).toBe('http://127.0.0.1:8082/healthz');
    expect(probeTarget(['worker', '--concurrency', '8', '--health-port', '9100'], imageEnv)?.url).toBe('http://127.0.0.1:9100/healthz');
    expect(probeTarget(['worker'], { PORT: '8080' })).toBeNull();
  });

  it('a specific listen address is probed there; a wildcard on loopback', () => {
    expect(probeTarget(['engine'], { ENGINE_HOST: '10.1.2.3' })?.url).toBe('http://10.1.2.3:8081/healthz');
    expect(probeTarget(['serve', '--host', '::'], {})?.url).toBe('http://127.0.0.1:8080/healthz');
    expect(probeTarget(['serve', '--host', 'fd00::5'], {})?.url).toBe('http://[fd00::5]:8080/healthz');
  });

  describe('finding the command among the processes (PID 1, or a child of an init)', () => {
    let proc: string;
    const addProcess = (pid: number, argv: string[]) => {
      mkdirSync(join(proc, String(pid)));
      writeFileSync(join(proc, String(pid), 'cmdline'), `${argv.join('\0')}\0`);
    };
    beforeEach(() => (proc = mkdtempSync(join(tmpdir(), 'vh-proc-'))));
    afterEach(() => rmSync(proc, { recursive: true, force: true }));

    it('reads the arguments after verify-hub.js, skipping an init at PID 1 and other processes', () => {
      addProcess(1, ['/sbin/docker-init', '--', 'node', 'cli/bin/verify-hub.js', 'engine']);
      expect(findVerifyHubArgs(proc)).toEqual(['engine']);
      rmSync(join(proc, '1'), { recursive: true });
      addProcess(1, ['/sbin/docker-init', '--', 'node', 'cli/bin/other.js']);
      addProcess(7, ['node', '/app/cli/bin/verify-hub.js', 'worker', '--health-port', '9100']);
      mkdirSync(join(proc, 'self'));
      expect(findVerifyHubArgs(proc)).toEqual(['worker', '--health-port', '9100']);
    });

    it('null when no verify-hub process runs', () => {
      addProcess(1, ['sleep', 'infinity']);
      expect(findVerifyHubArgs(proc)).toBeNull();
    });
  });
});
