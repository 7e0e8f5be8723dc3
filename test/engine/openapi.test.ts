import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ENGINE_CHECK_FIELDS, OPENAPI_PATH } from '@verify-hub/engine';
import { EngineContract } from './openapi-contract';

const run = promisify(execFile);
const REDOCLY = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
const CONFIG = join(dirname(OPENAPI_PATH), 'redocly.yaml');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

/** Redocly CLI's lint of a description with the committed engine/redocly.yaml, as its JSON report. */
async function lint(file: string): Promise<LintReport> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  // Exit code 1 means "problems found": the report on stdout says which.
  const { stdout } = await run(process.execPath, [REDOCLY, 'lint', file, '--config', CONFIG, '--format', 'json'], { env, maxBuffer: 10 * 1024 * 1024 }).catch(
    (error: { stdout?: string; stderr?: string }) => {
      if (!error.stdout) throw new Error(`redocly lint did not report: ${error.stderr ?? String(error)}`);
      return { stdout: error.stdout };
    },
  );
  return JSON.parse(stdout) as LintReport;
}

const brief = (r: LintReport) => r.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`);

describe('engine/openapi.yaml', () => {
  it('lints clean with Redocly CLI and the committed rules: zero errors, zero warnings', async () => {
    const report = await lint(OPENAPI_PATH);
    expect(brief(report)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("the committed rules are in force: an undocumented field or a missing error response is reported", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vh-openapi-'));
    try {
      const broken = (await readFile(OPENAPI_PATH, 'utf8'))
        .replace("          description: Extension (check). The local part carries a `+tag`.\n", '')
        .replace("        '429':\n", "        '499':\n");
      const file = join(dir, 'openapi.yaml');
      await writeFile(file, broken);
      const rules = (await lint(file)).problems.map((p) => p.ruleId);
      expect(rules).toEqual(expect.arrayContaining(['rule/every-field-described', 'rule/verify-documents-its-errors']));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('the verify answer it describes', () => {
    const contract = new EngineContract();
    const answer = contract.document.paths['/api/v1/verify']!.get!.responses['200']!.content!['application/json']!.schema as {
      required: string[];
      properties: Record<string, Record<string, unknown>>;
    };

    it('lists every field as required (every answer carries all of them), the engine\'s further checks included', () => {
      expect([...answer.required].sort()).toEqual(Object.keys(answer.properties).sort());
      for (const field of ENGINE_CHECK_FIELDS) expect(answer.properties).toHaveProperty(field);
    });

    it('has an enum only where the list is closed (risk); the open vocabularies are documented, not enumerated', () => {
      const enums: string[] = [];
      const walk = (schema: Record<string, unknown>, path: string) => {
        if (schema.enum) enums.push(path);
        for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) walk(v, path ? `${path}.${k}` : k);
      };
      walk(answer as unknown as Record<string, unknown>, '');
      expect(enums).toEqual(['risk']);
      for (const field of ['smtp_check', 'spam_trap_risk']) expect(answer.properties[field]).toMatchObject({ type: 'string', nullable: true, description: expect.stringContaining('open vocabulary') });
    });

    it("the contract helper refuses what the description does not describe", () => {
      const json = { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '1790000000', 'x-quota-limit': '5', 'x-quota-remaining': '4', 'x-quota-reset': '1790000000', 'x-request-id': '1b4e28ba-2fa1-41d2-883f-0016d3cca427' } as Record<string, string>;
      const header = (extra: Record<string, string | undefined> = {}) => (name: string) => ({ ...json, ...extra })[name.toLowerCase()];
      const example = (contract.document.components as { examples: { Deliverable: { value: Record<string, unknown> } } }).examples.Deliverable.value;
      expect(contract.check('GET', '/api/v1/verify', 200, header(), JSON.stringify(example))).toEqual([]);
      expect(contract.check('GET', '/api/v1/verify', 200, header(), JSON.stringify({ ...example, invented: true }))).toEqual(['body must NOT have additional properties: invented']);
      expect(contract.check('GET', '/api/v1/verify', 200, header(), JSON.stringify({ ...example, deliverability: { ...(example.deliverability as object), authentication: { spf: true, dkim: 'found', dmarc: 'reject' } } }))).toEqual(['body/deliverability/authentication/spf must be string']);
      const { smtp_valid: _dropped, ...missing } = example;
      expect(contract.check('GET', '/api/v1/verify', 200, header(), JSON.stringify(missing))).toEqual(["body must have required property 'smtp_valid'"]);
      expect(contract.check('GET', '/api/v1/verify', 200, header({ 'x-ratelimit-reset': undefined }), JSON.stringify(example))).toEqual(['header X-RateLimit-Reset is missing']);
      expect(contract.check('GET', '/api/v1/verify', 400, header(), JSON.stringify({ error: 'email: required', code: 'INVALID_REQUEST' }))).toEqual(["body must have required property 'field'"]);
      expect(contract.check('GET', '/api/v1/verify', 401, header(), JSON.stringify({ error: 'no key', code: 'NOPE' }))).toEqual(['body/code must be equal to one of the allowed values']);
      expect(contract.check('GET', '/api/v1/verify', 418, header(), '{}')).toEqual(['GET /api/v1/verify answered 418, which the description does not list']);
    });
  });
});
