/**
 * The per-suite CPU meter (test/setup/suite-cpu.js) counts the CPU of the processes a suite spawned,
 * apart from its own: the acceptance suites' serve and workers and the release build are most of it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const { SUITE_CPU_FILE, suiteCpuMeter } = require('../setup/suite-cpu') as {
  SUITE_CPU_FILE: string;
  suiteCpuMeter: (testPath: string) => { loaded(): void; done(): void };
};

describe('the suite CPU meter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vh-suite-cpu-'));
  const previous = process.env[SUITE_CPU_FILE];
  afterAll(() => {
    if (previous === undefined) delete process.env[SUITE_CPU_FILE];
    else process.env[SUITE_CPU_FILE] = previous;
    rmSync(dir, { recursive: true, force: true });
  });

  it("counts an ended child's CPU as the suite's childMs, not as its own", () => {
    const file = join(dir, 'notes.jsonl');
    process.env[SUITE_CPU_FILE] = file;
    const meter = suiteCpuMeter('a-suite');
    // The child spins until its own CPU clock says 400 ms, however loaded the machine is.
    const child = spawnSync(process.execPath, ['-e', 'while (process.cpuUsage().user < 400000) {}']);
    expect(child.status).toBe(0);
    meter.done();
    const [note] = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { testPath: string; cpuMs: number; childMs: number | null });
    expect(note!.testPath).toBe('a-suite');
    // 400 ms of the child's user time, plus its start-up; read in ticks of 10 ms.
    expect(note!.childMs).toBeGreaterThanOrEqual(390);
    // The suite's own process only waited.
    expect(note!.cpuMs).toBeLessThan(note!.childMs!);
  });
});
