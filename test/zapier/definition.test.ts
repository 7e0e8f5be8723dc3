import zapier from 'zapier-platform-core';
import { VerificationSchema } from '@verify-hub/core';
import App from 'verify-hub-zapier';

// Neither export is in the packages' type declarations: createAppHandler is what `zapier validate` runs,
// validateAppDefinition the schema check of zapier-platform-schema (no types shipped).
const { createAppHandler } = zapier as unknown as { createAppHandler(app: object): (event: object) => Promise<unknown> };
const schema = require('zapier-platform-schema') as { validateAppDefinition(definition: unknown): { errors: { stack: string }[] } };

type Field = { key: string; label?: string; helpText?: string };
type Operation = { key: string; noun: string; display: { label: string; description: string }; operation: { sample?: unknown; outputFields?: Field[]; inputFields?: Field[] } };

const all = (): [string, Operation][] => [
  ...Object.entries(App.triggers).map(([k, v]) => [`triggers.${k}`, v as unknown as Operation] as [string, Operation]),
  ...Object.entries(App.searches).map(([k, v]) => [`searches.${k}`, v as unknown as Operation] as [string, Operation]),
  ...Object.entries(App.creates).map(([k, v]) => [`creates.${k}`, v as unknown as Operation] as [string, Operation]),
];

/** Every leaf key of a nested object in Zapier's `a__b` notation. */
function leafKeys(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leafKeys(v, prefix ? `${prefix}__${k}` : k));
}

/** Every field of a sample in Zapier's notation: `a__b` for nested objects, `list[]field` for line items. */
function sampleKeys(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) {
    const first: unknown = value[0];
    return first !== null && typeof first === 'object' && !Array.isArray(first) ? sampleKeys(first, `${prefix}[]`) : [prefix];
  }
  if (value === null || typeof value !== 'object') return [prefix];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => sampleKeys(v, !prefix ? k : prefix.endsWith('[]') ? `${prefix}${k}` : `${prefix}__${k}`));
}

describe('Zapier app definition', () => {
  it('passes the platform validation offline (createAppHandler validate)', async () => {
    const handler = createAppHandler(App);
    const answer = (await handler({ command: 'validate', calledFromCli: true })) as { status: string; results: unknown[] };
    expect(answer).toEqual({ status: 'SUCCESS', results: [] });
  });

  it('its serialized definition has no error under zapier-platform-schema', async () => {
    const handler = createAppHandler(App);
    const { results: definition } = (await handler({ command: 'definition', calledFromCli: true })) as { results: Record<string, unknown> };
    expect(JSON.parse(JSON.stringify(definition))).toEqual(definition); // serializable: functions became pointers
    const { errors } = schema.validateAppDefinition(definition);
    expect(errors.map((e) => e.stack)).toEqual([]);
    expect(definition).toMatchObject({ flags: { skipHttpPatch: true }, authentication: { type: 'custom' } });
  });

  it('keys match, labels and help follow the publishing rules, and every operation has a sample and labelled outputs', () => {
    for (const [path, op] of all()) {
      expect(path.endsWith(`.${op.key}`)).toBe(true);
      expect(op.display.label).toMatch(/^[A-Z][A-Za-z ]+$/); // title case, no trailing period
      expect(op.display.description).toMatch(/\.$/);
      if (path.startsWith('triggers.')) expect(op.display.description).toMatch(/^Triggers when /);
      expect(op.operation.sample).toBeDefined();
      for (const f of op.operation.outputFields ?? []) expect(`${path} ${f.key}: ${f.label}`).toMatch(/: [A-Z]/);
      for (const f of op.operation.inputFields ?? []) {
        expect(f.label).toMatch(/^[A-Z]/);
        expect(f.helpText ?? '').toMatch(/\S.*\.$/);
      }
    }
    for (const f of App.authentication.fields) expect(f.helpText).toMatch(/\.$/);
  });

  it('every operation has a sample, and every field of its sample has a labelled output field', () => {
    for (const [path, op] of all()) {
      const { sample, outputFields } = op.operation;
      expect([path, typeof sample, Array.isArray(sample)]).toEqual([path, 'object', false]);
      expect(Object.keys(sample as object).length).toBeGreaterThan(0);
      expect(outputFields?.length ?? 0).toBeGreaterThan(0);
      const labels = new Map((outputFields ?? []).map((f) => [f.key, f.label]));
      for (const f of outputFields ?? []) expect(`${path} ${f.key}: ${f.label ?? ''}`).toMatch(/: [A-Z]\S/);
      // Zapier's notation: `a__b` for nested fields, `list[]field` for the fields of line items.
      const missing = sampleKeys(sample).filter((key) => !labels.get(key));
      expect(`${path} unlabelled: ${missing.join(', ')}`).toBe(`${path} unlabelled: `);
    }
  });

  it('labels every field of the canonical result, and the samples are valid results', () => {
    const sample = App.creates.verify_email.operation.sample;
    expect(VerificationSchema.safeParse(sample).success).toBe(true);
    const labelled = new Set(App.creates.verify_email.operation.outputFields.map((f) => f.key));
    // every field of the canonical schema, including the optional ones the sample shows
    const canonical = leafKeys(sample);
    expect(canonical.length).toBeGreaterThanOrEqual(25);
    expect(canonical.filter((k) => !labelled.has(k))).toEqual([]);
    const list = App.creates.verify_email_list.operation;
    const listLabelled = new Set(list.outputFields.map((f) => f.key));
    expect(canonical.filter((k) => !listLabelled.has(`results[]${k}`))).toEqual([]);
    for (const r of list.sample.results) expect(VerificationSchema.safeParse(r).success).toBe(true);
    expect(App.creates.verify_email.operation.outputFields.length).toBe(App.searches.find_email_verification.operation.outputFields.length);
  });

  it('labels the open vocabularies with their values: SMTP check (with not_checked), SPF, DKIM and DMARC as strings', () => {
    const fields = new Map(App.creates.verify_email.operation.outputFields.map((f) => [f.key, f]));
    expect(fields.get('checks__smtpCheck')).toMatchObject({ type: 'string', label: expect.stringMatching(/^SMTP Check \(deliverable, undeliverable, .*not_checked\)$/) });
    expect(fields.get('deliverability__authentication__spf')).toMatchObject({ type: 'string', label: 'SPF Policy (strict, soft, neutral, open, missing)' });
    expect(fields.get('deliverability__authentication__dkim')).toMatchObject({ type: 'string', label: 'DKIM (found, missing)' });
    expect(fields.get('deliverability__authentication__dmarc')).toMatchObject({ type: 'string', label: 'DMARC Policy (reject, quarantine, none, missing)' });
    expect(fields.get('checks__disposable')).toMatchObject({ type: 'boolean', label: expect.stringContaining('empty when not checked') });
  });

  it('package.json makes a pushable Zapier app: compiled index.js entry, exact platform version', () => {
    const pkg = require('../../connectors/zapier/package.json') as { main: string; scripts: Record<string, string>; dependencies: Record<string, string>; files: string[] };
    expect(pkg.main).toBe('index.js');
    // `zapier-platform test` runs the package's `npm test`
    expect(pkg.scripts.test).toMatch(/^jest .*test\/zapier$/);
    expect(pkg.files).toEqual(expect.arrayContaining(['index.js', 'dist']));
    expect(pkg.dependencies['zapier-platform-core']).toBe(zapier.version);
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@verify-hub/core', 'zapier-platform-core']);
    expect(App.platformVersion).toBe(zapier.version);
  });
});
