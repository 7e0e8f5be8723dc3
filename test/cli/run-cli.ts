import { main } from 'verify-hub';

/** Runs the CLI in this process (the same `main` the bin calls) and captures its output and exit code. */
export async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = jest.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (out.push(String(chunk)), true));
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (err.push(String(chunk)), true));
  process.exitCode = 0;
  try {
    await main(['node', 'verify-hub', ...args]);
    return { code: Number(process.exitCode ?? 0), out: out.join('\n'), err: err.join('\n') };
  } finally {
    process.exitCode = 0;
    log.mockRestore();
    error.mockRestore();
    stdout.mockRestore();
    stderr.mockRestore();
  }
}
