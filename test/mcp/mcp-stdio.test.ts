import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { FakeEngine } from '../fakes/engine';
import { callTool, textOf } from './helpers';
import { TS_CHILD_ARGS } from '../setup/ts-child';

const ROOT = join(__dirname, '..', '..');
/** Each test starts a Node process that compiles TypeScript on the fly: slow on a busy machine. */
const SPAWN_TIMEOUT_MS = 90_000;

/**
 * `verify-hub mcp --stdio`, the CLI command run from its TypeScript sources (as cli/bin/verify-hub.js
 * does in a checkout) through a small entry that registers only this command.
 */
function cliArgs(): string[] {
  return [...TS_CHILD_ARGS, join(__dirname, 'fixtures', 'mcp-command.ts'), 'mcp', '--stdio'];
}

function cliEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...extra };
}

describe('verify-hub mcp --stdio (SDK client over stdio against the fake engine)', () => {
  const engine = new FakeEngine({ quota: 3 });
  const clients: Client[] = [];

  const start = async (apiKey: string): Promise<Client> => {
    const client = new Client({ name: 'verify-hub-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: cliArgs(),
      cwd: ROOT,
      env: cliEnv({ ENGINE_URL: engine.url, ENGINE_API_KEY: apiKey }),
      stderr: 'pipe',
    });
    clients.push(client);
    await client.connect(transport);
    return client;
  };

  beforeAll(async () => {
    await engine.start();
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await engine.stop();
  });

  test('lists the tools, verifies, explains, then reports quota and a bad key as tool errors', async () => {
    const client = await start(engine.apiKey);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['explain_result', 'verify_email', 'verify_emails']);

    const one = await callTool(client, 'verify_email', { email: 'stdio.user@example.com' });
    expect(one.structuredContent).toMatchObject({ email: 'stdio.user@example.com', risk: 'safe', billable: true });
    expect(engine.requests.at(-1)).toMatchObject({ email: 'stdio.user@example.com', keyMatched: true });

    const many = await callTool(client, 'verify_emails', { emails: ['risky.a@example.com', 'invalid.b@example.com'] });
    expect((many.structuredContent as { summary: unknown }).summary).toMatchObject({ total: 2, risky: 1, invalid: 1, credits: 2 });

    const explained = await callTool(client, 'explain_result', { result: { risk: 'risky', reason: 'catch_all', checks: { catchAll: true } } });
    expect(explained.structuredContent).toMatchObject({ verdict: 'send_with_caution' });

    // The fake engine's quota of 3 billable answers is spent now.
    const overQuota = await callTool(client, 'verify_email', { email: 'fourth@example.com' });
    expect(overQuota.isError).toBe(true);
    expect(textOf(overQuota)).toMatch(/^QUOTA_EXCEEDED: .* until \d{4}-/);

    const bad = await callTool(client, 'verify_email', { email: '' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/email/);
  }, SPAWN_TIMEOUT_MS);

  test('a wrong ENGINE_API_KEY: the server runs, and calls answer UNAUTHORIZED', async () => {
    const client = await start('wrong-key');
    const result = await callTool(client, 'verify_email', { email: 'someone@example.com' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^UNAUTHORIZED/);
    expect(textOf(result)).not.toContain('wrong-key');
  }, SPAWN_TIMEOUT_MS);

  test('no ENGINE_API_KEY: exits with status 2 and names the variable on stderr, stdout stays clean', async () => {
    const child = spawn(process.execPath, cliArgs(), { cwd: ROOT, env: cliEnv({ ENGINE_URL: engine.url }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('ENGINE_API_KEY');
    expect(stdout).toBe('');
  }, SPAWN_TIMEOUT_MS);
});
