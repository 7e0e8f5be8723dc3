import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { CARD_ACTIONS, DEFAULT_SCOPES, cardRoute, cardView, hubspotPlatform, verifyActionComponent, verifyActionDefinition } from '@verify-hub/connector-hubspot';
import { PublicActionDefinitionEgg } from '../fakes/hubspot/published-schemas';
import { verdictDisplay, type HubCardView } from '../../connectors/hubspot/hubspot-project/src/app/cards/verdict-model';
import { verification } from './helpers';

/**
 * The HubSpot developer project (connectors/hubspot/hubspot-project: app, contact card, workflow action)
 * checked against the fields HubSpot documents for platform 2025.2 and the rules the HubSpot CLI's
 * parsing library applies locally (@hubspot/project-parsing-lib: uid of letters, digits, `_`, `-`, `.`
 * up to 64; a `workflow-action` in `app/workflow-actions/`; its schema itself is fetched from HubSpot's
 * servers, so it cannot be checked here), and against the hub: the scopes the connector asks for, the
 * hub URL the card may fetch, the endpoints it calls, the card's display of the hub's answer, and the
 * action component generated from the definition the code uses (a drift fails).
 */
const PROJECT = join(__dirname, '../../connectors/hubspot/hubspot-project');
const json = (path: string): unknown => JSON.parse(readFileSync(join(PROJECT, path), 'utf8'));
const httpsUrl = z.url({ protocol: /^https$/ }).refine((u) => !/localhost|127\.0\.0\.1/.test(u), 'cannot be localhost');
const uid = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _, - and . (at most 64)');

const ProjectSchema = z.strictObject({ name: z.string().min(1), srcDir: z.string().min(1), platformVersion: z.enum(['2025.2', '2026.03']) });
const AppSchema = z.strictObject({
  uid,
  type: z.literal('app'),
  config: z.strictObject({
    name: z.string().min(1).max(200),
    description: z.string().min(1),
    distribution: z.enum(['private', 'marketplace']),
    auth: z.strictObject({
      type: z.enum(['oauth', 'static']),
      redirectUrls: z.array(httpsUrl).min(1),
      requiredScopes: z.array(z.string().min(1)).min(1),
      optionalScopes: z.array(z.string().min(1)),
      conditionallyRequiredScopes: z.array(z.string().min(1)),
    }),
    permittedUrls: z.strictObject({ fetch: z.array(httpsUrl), iframe: z.array(httpsUrl), img: z.array(httpsUrl) }),
    support: z.strictObject({ supportEmail: z.email(), documentationUrl: httpsUrl, supportUrl: httpsUrl.optional(), supportPhone: z.string().optional() }),
  }),
});
const CardSchema = z.strictObject({
  uid,
  type: z.literal('card'),
  config: z.strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    location: z.enum(['crm.record.tab', 'crm.record.sidebar', 'crm.preview', 'helpdesk.sidebar']),
    entrypoint: z.string().regex(/^\/app\/cards\/[^/]+\.(jsx|tsx)$/, 'a .jsx or .tsx file in /app/cards/'),
    objectTypes: z.array(z.enum(['contacts', 'companies', 'deals', 'tickets'])).min(1),
  }),
});

/**
 * The workflow-action component (HubSpot's custom workflow actions and agent tools references):
 * `supportedClients` WORKFLOWS and/or AGENTS; an agent tool needs `toolType` and
 * `llmConfig.actionDescription`; the rest is the action definition, checked with the published schema.
 */
const ActionComponentSchema = z.strictObject({
  uid,
  type: z.literal('workflow-action'),
  config: z
    .looseObject({
      actionUrl: httpsUrl,
      isPublished: z.boolean().optional(),
      supportedClients: z.array(z.strictObject({ client: z.enum(['WORKFLOWS', 'AGENTS']) })).min(1),
      toolType: z.enum(['GET_DATA', 'GENERATE', 'TAKE_ACTION']).optional(),
      llmConfig: z.strictObject({ actionDescription: z.string().min(1) }).optional(),
    })
    .refine((c) => !c.supportedClients.some((s) => s.client === 'AGENTS') || (c.toolType && c.llmConfig), 'an agent tool (AGENTS) needs toolType and llmConfig.actionDescription'),
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

describe('the HubSpot developer project', () => {
  const project = ProjectSchema.parse(json('hsproject.json'));
  const app = AppSchema.parse(json(`${project.srcDir}/app/app-hsmeta.json`));
  const card = CardSchema.parse(json(`${project.srcDir}/app/cards/verdict-card-hsmeta.json`));
  const cardSource = readFileSync(join(PROJECT, project.srcDir, card.config.entrypoint), 'utf8');
  const action = ActionComponentSchema.parse(json(`${project.srcDir}/app/workflow-actions/verify-email-hsmeta.json`));

  it('has its components where HubSpot looks for them, each uid once', () => {
    const metas = filesUnder(join(PROJECT, project.srcDir)).filter((f) => f.endsWith('-hsmeta.json')).map((f) => relative(join(PROJECT, project.srcDir), f));
    expect(metas.sort()).toEqual(['app/app-hsmeta.json', 'app/cards/verdict-card-hsmeta.json', 'app/workflow-actions/verify-email-hsmeta.json']);
    expect(new Set([app.uid, card.uid, action.uid]).size).toBe(3);
    expect(existsSync(join(PROJECT, project.srcDir, card.config.entrypoint))).toBe(true);
    const cardPackage = json(`${project.srcDir}/app/cards/package.json`) as { dependencies: Record<string, string> };
    expect(Object.keys(cardPackage.dependencies)).toEqual(expect.arrayContaining(['@hubspot/ui-extensions', 'react']));
  });

  it('asks for the scopes the connector uses, and sits on contact records', () => {
    expect([...app.config.auth.requiredScopes].sort()).toEqual([...DEFAULT_SCOPES].sort());
    expect(card.config.objectTypes).toEqual(['contacts']);
  });

  it('lets the card fetch the hub it calls, at the endpoints the hub serves', () => {
    const hubUrl = /HUB_URL = '([^']+)'/.exec(readFileSync(join(PROJECT, project.srcDir, 'app/cards/hub-url.ts'), 'utf8'))?.[1];
    expect(hubUrl).toBeDefined();
    expect(app.config.permittedUrls.fetch).toContain(new URL(hubUrl!).origin);
    expect(app.config.auth.redirectUrls.every((u) => new URL(u).origin === new URL(hubUrl!).origin && u.endsWith('/oauth/hubspot/callback'))).toBe(true);
    // The path the HubSpot module's route is served at (the hub mounts platform routes at /platforms/<id>).
    const route = cardRoute('secret', { stored: async () => undefined, verify: async () => { throw new Error('not called'); } });
    expect(cardSource).toContain(`/platforms/${hubspotPlatform.id}${route.path.replace(':action', '${action}')}`);
    const called = [...cardSource.matchAll(/'(verdict|verify)'/g)].map((m) => m[1]).filter(Boolean);
    expect(new Set(called)).toEqual(new Set(CARD_ACTIONS));
    // The official components, fetched through HubSpot's signed hubspot.fetch.
    expect(cardSource).toMatch(/from '@hubspot\/ui-extensions'/);
    expect(cardSource).toMatch(/hubspot\.fetch/);
    expect(cardSource).toMatch(/hubspot\.extend<'crm\.record\.sidebar'>/);
    expect(card.config.location).toBe('crm.record.sidebar');
  });

  it('has the workflow action generated from the definition the code uses (regenerate with `verify-hub hubspot actions component`)', () => {
    const hubUrl = /HUB_URL = '([^']+)'/.exec(readFileSync(join(PROJECT, project.srcDir, 'app/cards/hub-url.ts'), 'utf8'))![1]!;
    expect(action).toEqual(JSON.parse(JSON.stringify(verifyActionComponent(`${hubUrl}/actions/hubspot`))));
    // Offered in workflows and to HubSpot's agents, at the hub's action route.
    expect(action.config.supportedClients.map((c) => c.client)).toEqual(['WORKFLOWS', 'AGENTS']);
    expect(action.config.actionUrl).toBe(`${hubUrl}/actions/hubspot`);
  });

  it('declares the same action as the definitions API body, and both pass the published PublicActionDefinitionEgg', () => {
    const { isPublished, supportedClients: _clients, toolType: _tool, llmConfig: _llm, ...fields } = action.config;
    const asDefinition = { ...fields, published: isPublished ?? false, functions: [] };
    expect(PublicActionDefinitionEgg.safeParse(asDefinition).error?.issues).toBeUndefined();
    const definition = JSON.parse(JSON.stringify(verifyActionDefinition(action.config.actionUrl))) as unknown;
    expect(PublicActionDefinitionEgg.safeParse(definition).error?.issues).toBeUndefined();
    expect(asDefinition).toEqual(definition);
  });

  it("shows the hub's answer: verdict, score, when, and a check not made as \"not checked\", never \"no\"", () => {
    const v = verification('someone@example.com', { risk: 'risky', score: 61, reason: 'accept_all', checkedAt: '2026-11-23T22:40:00.000Z', checks: { syntax: true, mx: true, smtp: null, smtpCheck: 'not_checked', disposable: false, roleAccount: null, catchAll: true, freeProvider: null, spamTrapRisk: null } });
    const view = JSON.parse(JSON.stringify(cardView('someone@example.com', v))) as HubCardView;
    const shown = verdictDisplay(view, 'someone@example.com');
    expect(shown).toMatchObject({ headline: 'someone@example.com', tag: { text: 'Risky', variant: 'warning' }, score: '61 / 100', checkedAt: 'Checked 23 Nov 2026, 22:40 UTC' });
    const value = (label: RegExp) => shown.checks.find((c) => label.test(c.label))?.value;
    expect(value(/^Disposable/)).toBe('no');
    expect(value(/^Role address/)).toBe('not checked');
    expect(value(/^Free mailbox/)).toBe('not checked');
    expect(value(/catch-all/)).toMatch(/^yes/);
    expect(value(/^Mailbox/)).toBe('not checked');
    expect(verdictDisplay({ checked: false, email: 'new@example.com' }, 'new@example.com')).toMatchObject({ headline: 'new@example.com has not been checked yet.', tag: null, checkedAt: 'Never checked', checks: [] });
    expect(verdictDisplay(undefined, null).headline).toBe('This contact has no email address.');
  });
});
