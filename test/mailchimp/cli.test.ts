import { Command } from 'commander';
import { register } from '../../cli/src/commands/mailchimp';
import { FakeMailchimp } from '../fakes/mailchimp';

const KEY = `${'9'.repeat(32)}-us4`;
let fake: FakeMailchimp;
const saved = { ...process.env };

beforeAll(async () => {
  fake = await new FakeMailchimp().start();
  fake.addAccount(KEY, { dc: 'us4' });
  fake.addList(KEY, 'cliList');
  fake.addMergeField('cliList', { tag: 'EVSCORE', name: 'Score', type: 'text' }); // wrong type: a problem to report
});
afterAll(async () => {
  process.env = saved;
  process.exitCode = undefined;
  await fake.close();
});

async function run(args: string[]): Promise<string> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void lines.push(parts.join(' ')));
  try {
    const program = new Command('verify-hub').exitOverride();
    register(program);
    await program.parseAsync(['node', 'verify-hub', ...args]);
  } finally {
    log.mockRestore();
  }
  return lines.join('\n');
}

test('mailchimp setup creates the missing merge fields, reports a field of the wrong type, and is idempotent', async () => {
  process.env.MAILCHIMP_API_KEY = KEY;
  process.env.MAILCHIMP_API_BASE = fake.apiBase;
  const out = await run(['mailchimp', 'setup', '--list', 'cliList']);
  expect(out).toContain('created   merge field EVRISK (text)');
  expect(out).toContain('created   merge field EVDATE (text)');
  expect(out).toContain("PROBLEM   merge field EVSCORE exists with type text");
  expect(process.exitCode).toBe(1);
  process.exitCode = undefined;
  const again = JSON.parse(await run(['mailchimp', 'setup', '--list', 'cliList', '--json'])) as { created: string[]; existing: string[] };
  expect(again.created).toEqual([]);
  expect(again.existing).toEqual(['merge field EVRISK', 'merge field EVDATE']);
  expect(out).not.toContain(KEY);
});

test('mailchimp setup without MAILCHIMP_API_KEY names the variable', async () => {
  delete process.env.MAILCHIMP_API_KEY;
  await expect(run(['mailchimp', 'setup', '--list', 'cliList'])).rejects.toThrow(/^MAILCHIMP_API_KEY: is required/);
});
