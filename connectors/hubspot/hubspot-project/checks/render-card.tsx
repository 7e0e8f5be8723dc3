/**
 * Renders the contact card with HubSpot's own test renderer (`@hubspot/ui-extensions/testing`) and a
 * fetcher standing in for the hub: "not checked yet", then "Verify again" shows the verdict. Not part
 * of `npm test` (@hubspot/ui-extensions wants TypeScript 5, the repository has 6); run it by hand, see
 * ../README.md. Fails (exit 1) on the first expectation not met.
 */
import React from 'react';
import { createRenderer } from '@hubspot/ui-extensions/testing';
import { Button, DescriptionListItem, Tag, Text } from '@hubspot/ui-extensions';
import { VerdictCard } from '../src/app/cards/VerdictCard';

function expectEqual(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

const { render, find, findAll, waitFor, mocks } = createRenderer('crm.record.sidebar');
mocks.useCrmProperties.willCall(() => ({ properties: { email: 'someone@example.com' }, error: null, isLoading: false, isRefetching: false, refetch: async () => undefined }));
const calls: string[] = [];
const fetcher = async (url: string, options: { body: Record<string, unknown> }) => {
  calls.push(url.replace(/^https?:\/\/[^/]+/, ''));
  const answer = url.endsWith('/verify')
    ? { checked: true, email: options.body.email, risk: 'risky', score: 61, reason: 'the domain accepts any address', didYouMean: null, checkedAt: '2026-11-23T22:40:00.000Z', checks: [{ check: 'roleAccount', label: 'Role address', value: 'not checked', checked: false }, { check: 'disposable', label: 'Disposable', value: 'no', checked: true }] }
    : { checked: false, email: options.body.email };
  return new Response(JSON.stringify(answer), { status: 200 });
};

render(<VerdictCard fetcher={fetcher as never} objectId={7} />);
await waitFor(() => expectEqual(calls, ['/platforms/hubspot/cards/verdict'], 'asked for the stored verdict'));
await waitFor(() => expectEqual(find(Text).text, 'someone@example.com has not been checked yet.', 'headline before a check'));
find(Button).trigger('onClick');
await waitFor(() => expectEqual(findAll(Tag).map((t) => [t.text, t.props.variant]), [['Risky', 'warning']], 'risk tag'));
expectEqual(calls, ['/platforms/hubspot/cards/verdict', '/platforms/hubspot/cards/verify'], 'asked to verify again');
expectEqual(findAll(DescriptionListItem).map((d) => `${d.props.label}=${d.text}`), ['Score=61 / 100', 'Why=the domain accepts any address', 'Role address=not checked', 'Disposable=no'], 'details');
console.log('card renders: not checked yet, then the verdict after Verify again');
