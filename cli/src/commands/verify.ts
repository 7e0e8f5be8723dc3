import type { Command } from 'commander';
import type { Verification } from '@verify-hub/core';
import { EXIT } from '../command';

interface VerifyOptions {
  json?: boolean;
}

/** Words for reasons only this command meets (the local engine without DNS); the rest are core's REASON_WORDS. */
const OWN_WORDS: Readonly<Record<string, string>> = {
  dns_unavailable: 'DNS cannot reach the internet from this machine, so its mail server could not be looked up',
};

export function register(program: Command): void {
  program
    .command('verify')
    .summary('check one address and explain the answer in plain words')
    .description(
      [
        'Check one email address and print the verdict (safe, risky, invalid or unknown), its score, why,',
        'each check in plain words ("not checked" where a check was not made) and a suggestion when the',
        'address looks like a typo. --json prints the engine API\'s published answer instead.',
        'Uses the local engine in this process, or the engine at ENGINE_URL (key in ENGINE_API_KEY).',
        'Exit code 0 for any verdict; 2 for a missing or empty address; 1 when the engine refused the key,',
        'the quota or rate limit is spent, or the engine could not be used.',
      ].join('\n'),
    )
    .argument('<email>', 'the address to check')
    .option('--json', 'print the published answer shape (GET /api/v1/verify) as JSON')
    .addHelpText('after', '\nExamples:\n  $ verify-hub verify someone@gmial.com\n  $ verify-hub verify ada@acme.com --json\n  $ ENGINE_URL=https://api.verify-hub.com ENGINE_API_KEY=... verify-hub verify ada@acme.com')
    .action(async (email: string, options: VerifyOptions) => {
      process.exitCode = await verify(email, options);
    });
}

async function verify(email: string, options: VerifyOptions): Promise<number> {
  // Loaded on use, so that `verify-hub --help` stays quick.
  const { InputError, loadConfig } = await import('@verify-hub/core');
  if (!email.trim()) throw new InputError('email', 'is empty: give the address to check, e.g. verify-hub verify ada@acme.com');
  const { engineFromConfig } = await import('../engine-from-config');
  const engine = engineFromConfig(loadConfig());
  const result = await engine.verifier.verify(email.trim());
  if (options.json) {
    const { engineAnswer } = await import('@verify-hub/engine');
    process.stdout.write(`${JSON.stringify(engineAnswer(result), null, 2)}\n`);
  } else {
    console.log(await humanAnswer(result, engine.label));
  }
  return EXIT.ok;
}

/** The answer for a person: verdict and score, why (core's plain words), the suggestion, then each check. */
export async function humanAnswer(v: Verification, engineLabel: string): Promise<string> {
  const { checksInWords, explainInWords, suggestedAddress } = await import('@verify-hub/core');
  const suggestion = suggestedAddress(v);
  const checks = checksInWords(v).filter((c) => c.check !== 'typoSuggestion');
  const width = Math.max(...checks.map((c) => c.label.length));
  const lines = [
    `${v.email}: ${v.risk.toUpperCase()}, score ${Math.round(v.score)}/100`,
    `  ${explainInWords(v, { own: OWN_WORDS })}`,
    `  Reason code: ${v.reason}`,
  ];
  if (suggestion) lines.push(`  Possible typo: did you mean ${suggestion}?`);
  lines.push('', 'Checks:', ...checks.map((c) => `  ${c.label.padEnd(width)}  ${c.value}`));
  lines.push('', `Checked by the ${engineLabel} at ${v.checkedAt}${v.billable ? '' : ' (not billed)'}.`);
  return lines.join('\n');
}
