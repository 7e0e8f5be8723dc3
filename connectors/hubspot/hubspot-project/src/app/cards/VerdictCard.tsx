import React, { useCallback, useEffect, useState } from 'react';
import { Alert, Button, DescriptionList, DescriptionListItem, Flex, LoadingSpinner, Tag, Text, hubspot } from '@hubspot/ui-extensions';
import { useCrmProperties } from '@hubspot/ui-extensions/crm';
import { HUB_URL } from './hub-url';
import { verdictDisplay, type HubCardView } from './verdict-model';

/**
 * "Email verification" on a contact record: the verdict verify-hub holds for the contact's address,
 * and "Verify again". Data comes from the hub through `hubspot.fetch`, which HubSpot signs (v3) and
 * extends with the portal id; the hub answers only portals connected to it.
 */
type Fetcher = (url: string, options: { method: 'POST'; body: Record<string, unknown>; timeout?: number }) => Promise<Response>;

export function VerdictCard({ fetcher = hubspot.fetch as Fetcher, objectId }: { fetcher?: Fetcher; objectId?: number }) {
  const { properties, isLoading } = useCrmProperties(['email']);
  const email = properties.email ?? null;
  const [view, setView] = useState<HubCardView>();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();

  const ask = useCallback(
    async (action: 'verdict' | 'verify') => {
      if (!email) return;
      setBusy(true);
      setProblem(undefined);
      try {
        const response = await fetcher(`${HUB_URL}/platforms/hubspot/cards/${action}`, { method: 'POST', body: { email, ...(objectId ? { objectId } : {}) }, timeout: 15_000 });
        const answer = (await response.json()) as HubCardView | { error: string };
        if (!response.ok || 'error' in answer) setProblem('error' in answer ? answer.error : `The hub answered ${response.status}`);
        else setView(answer);
      } catch {
        setProblem('The hub could not be reached; try again in a moment.');
      } finally {
        setBusy(false);
      }
    },
    [email, fetcher, objectId],
  );

  useEffect(() => {
    void ask('verdict');
  }, [ask]);

  if (isLoading || (busy && !view)) return <LoadingSpinner label="Loading the verdict" />;
  const shown = verdictDisplay(view, email);
  return (
    <Flex direction="column" gap="sm">
      {problem ? <Alert title="Could not get the verdict" variant="error">{problem}</Alert> : null}
      <Flex direction="row" gap="sm" align="center">
        <Text format={{ fontWeight: 'bold' }}>{shown.headline}</Text>
        {shown.tag ? <Tag variant={shown.tag.variant}>{shown.tag.text}</Tag> : null}
      </Flex>
      {shown.score ? (
        <DescriptionList direction="column">
          <DescriptionListItem label="Score">{shown.score}</DescriptionListItem>
          <DescriptionListItem label="Why">{shown.reason}</DescriptionListItem>
          {shown.didYouMean ? <DescriptionListItem label="Did you mean">{shown.didYouMean}</DescriptionListItem> : null}
          {shown.checks.map((c) => (
            <DescriptionListItem key={c.label} label={c.label}>{c.value}</DescriptionListItem>
          ))}
        </DescriptionList>
      ) : null}
      <Text variant="microcopy">{shown.checkedAt}</Text>
      {email ? (
        <Button variant="secondary" disabled={busy} onClick={() => void ask('verify')}>
          {busy ? 'Verifying…' : 'Verify again'}
        </Button>
      ) : null}
    </Flex>
  );
}

hubspot.extend<'crm.record.sidebar'>(({ context }) => <VerdictCard objectId={context.crm.objectId} />);
