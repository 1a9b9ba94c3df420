import { Badge, Button, Card, Checkbox, Clipboard, Code, Field, Fieldset, Heading, HStack, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { useId, useState, type ReactNode } from 'react';
import { credentialsMachine } from '../../machines/credentials/credentials.machine';
import { useAuthRef } from '../app/auth';
import * as messages from '../content/messages';
import type { ApiKeyInfo, ApiKeyScope, NewApiKey, SessionInfo } from '../../machines/shared/api';
import { browserName } from '../lib/browserName';
import { createChartContext, useDeferredSelector } from '../lib/chart';
import { Confirm } from './Confirm';
import { toastEffect } from './Toaster';

const t = messages.credentials;

/** The credentials chart the profile runs; tests hand in one with fake effects. */
export const CredentialsChart = createChartContext(credentialsMachine);

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : t.never);

function Section({ title, lead, children, action, anchor }: { title: string; lead: string; children: ReactNode; action?: ReactNode; anchor?: string }) {
  const id = useId();
  return (
    <Card.Root as="section" id={anchor} aria-labelledby={id} variant="outline" scrollMarginTop="20">
      <Card.Body gap="5">
        <HStack justify="space-between" align="start" wrap="wrap" gap="3">
          <Stack gap="1" flex="1" minW="60">
            <Heading as="h2" id={id} size="lg">
              {title}
            </Heading>
            <Text color="fg.muted" fontSize="sm">
              {lead}
            </Text>
          </Stack>
          {action}
        </HStack>
        {children}
      </Card.Body>
    </Card.Root>
  );
}

function Facts({ rows }: { rows: Array<[string, string]> }) {
  return (
    <Stack as="dl" gap="0.5" fontSize="sm">
      {rows.map(([label, value]) => (
        <HStack key={label} gap="2" align="start">
          <Text as="dt" color="fg.muted" minW="24">
            {label}
          </Text>
          <Text as="dd" minW="0" overflowWrap="anywhere">
            {value}
          </Text>
        </HStack>
      ))}
    </Stack>
  );
}

/** The question a change asks first, in place of its button: Yes goes on, Cancel drops it. */
interface Answer {
  onConfirm(): void;
  onCancel(): void;
}

function SessionItem({ session, busy, asking, onEnd, answer }: { session: SessionInfo; busy: boolean; asking: boolean; onEnd(): void; answer: Answer }) {
  const name = session.kind === 'addon' ? (session.client ?? t.kindAddon) : t.kindWeb;
  return (
    <Stack as="li" aria-label={name} borderWidth="1px" borderRadius="md" p="4" gap="3">
      <HStack gap="2" wrap="wrap">
        <Text fontWeight="semibold">{name}</Text>
        {/* A web session is named by its kind already; an add-on's name is its client's. */}
        {session.kind === 'addon' && <Badge colorPalette="purple">{t.kindAddon}</Badge>}
        {session.current && <Badge colorPalette="green">{t.thisDevice}</Badge>}
      </HStack>
      <Facts
        rows={[
          [t.created, when(session.created_at)],
          [t.lastUsed, when(session.last_used_at)],
          [t.address, session.ip ?? t.unknown],
          [t.browser, session.user_agent ? browserName(session.user_agent) : t.unknown],
        ]}
      />
      {!session.current &&
        (asking ? (
          <Confirm question={t.endSessionConfirm} yes={t.confirmEnd} no={t.cancel} onYes={answer.onConfirm} onCancel={answer.onCancel} />
        ) : (
          <Button size="sm" variant="outline" colorPalette="red" alignSelf="flex-start" onClick={onEnd} disabled={busy}>
            {t.endSession}
          </Button>
        ))}
    </Stack>
  );
}

function KeyItem({ apiKey, busy, asking, onRevoke, answer }: { apiKey: ApiKeyInfo; busy: boolean; asking: boolean; onRevoke(): void; answer: Answer }) {
  return (
    <Stack as="li" aria-label={apiKey.name} borderWidth="1px" borderRadius="md" p="4" gap="3">
      <HStack gap="2" wrap="wrap">
        <Text fontWeight="semibold">{apiKey.name}</Text>
        <Code>{`${apiKey.prefix}…${apiKey.last4}`}</Code>
      </HStack>
      <Facts
        rows={[
          [t.keyScopes, apiKey.scopes.join(', ')],
          [t.keyCreatedAt, when(apiKey.created_at)],
          [t.keyExpiresAt, apiKey.expires_at ? when(apiKey.expires_at) : t.expiryNever],
          [t.lastUsed, when(apiKey.last_used_at)],
        ]}
      />
      {asking ? (
        <Confirm question={t.revokeConfirm} yes={t.confirmRevoke} no={t.cancel} onYes={answer.onConfirm} onCancel={answer.onCancel} />
      ) : (
        <Button size="sm" variant="outline" colorPalette="red" alignSelf="flex-start" onClick={onRevoke} disabled={busy}>
          {t.revoke}
        </Button>
      )}
    </Stack>
  );
}

const SCOPES: Array<[ApiKeyScope, string]> = [
  ['query', t.scopeQuery],
  ['usage:read', t.scopeUsage],
];

function NewKeyForm({ busy, onCreate }: { busy: boolean; onCreate(key: NewApiKey): void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['query', 'usage:read']);
  const [expiry, setExpiry] = useState('90');
  const [problem, setProblem] = useState<'name' | 'scopes' | null>(null);
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (name.trim() === '') return setProblem('name');
    if (scopes.length === 0) return setProblem('scopes');
    setProblem(null);
    onCreate({ name: name.trim(), scopes, expires_in_days: expiry === 'never' ? null : (Number(expiry) as 30 | 90 | 365) });
    setName('');
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="4" maxW="md" borderTopWidth="1px" pt="5">
        <Heading as="h3" size="md">
          {t.newKeyTitle}
        </Heading>
        <Field.Root invalid={problem === 'name'} required>
          <Field.Label>
            {t.keyName}
            <Field.RequiredIndicator />
          </Field.Label>
          <Input value={name} onChange={(event) => setName(event.target.value)} maxLength={100} />
          <Field.ErrorText>{t.nameRequired}</Field.ErrorText>
        </Field.Root>
        {/* A fieldset, not a Field: inside a Field every checkbox would take the field's one id, and clicking one label would tick the other. */}
        <Fieldset.Root invalid={problem === 'scopes'}>
          <Fieldset.Legend fontSize="sm" fontWeight="medium">
            {t.keyScopes}
          </Fieldset.Legend>
          <Stack gap="2">
            {SCOPES.map(([scope, label]) => (
              <Checkbox.Root
                key={scope}
                checked={scopes.includes(scope)}
                onCheckedChange={({ checked }) => setScopes((now) => (checked === true ? [...now, scope] : now.filter((s) => s !== scope)))}
              >
                <Checkbox.HiddenInput />
                <Checkbox.Control />
                <Checkbox.Label>{label}</Checkbox.Label>
              </Checkbox.Root>
            ))}
          </Stack>
          <Fieldset.ErrorText>{t.scopeRequired}</Fieldset.ErrorText>
        </Fieldset.Root>
        <Field.Root>
          <Field.Label>{t.keyExpiry}</Field.Label>
          <NativeSelect.Root>
            <NativeSelect.Field value={expiry} onChange={(event) => setExpiry(event.target.value)}>
              {[30, 90, 365].map((days) => (
                <option key={days} value={String(days)}>
                  {t.expiryDays(days)}
                </option>
              ))}
              <option value="never">{t.expiryNever}</option>
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Button type="submit" colorPalette="brand" alignSelf="flex-start" loading={busy} loadingText={t.creatingKey}>
          {t.createKey}
        </Button>
      </Stack>
    </form>
  );
}

function CreatedKey({ value, onDone }: { value: string; onDone(): void }) {
  return (
    <Stack role="status" gap="3" borderWidth="1px" borderColor="green.muted" bg="green.subtle" borderRadius="md" p="4">
      <Text fontWeight="semibold">{t.keyCreatedTitle}</Text>
      <Text fontSize="sm">{t.keyCreatedText}</Text>
      <Clipboard.Root value={value}>
        <HStack gap="2" wrap="wrap">
          <Code aria-label={t.keyCreatedTitle} fontSize="sm" p="2" overflowWrap="anywhere" wordBreak="break-all" flex="1" minW="0">
            {value}
          </Code>
          <Clipboard.Trigger asChild>
            <Button size="sm" variant="outline">
              <Clipboard.Indicator copied={t.copied}>{t.copy}</Clipboard.Indicator>
            </Button>
          </Clipboard.Trigger>
        </HStack>
      </Clipboard.Root>
      <Button size="sm" alignSelf="flex-start" onClick={onDone}>
        {t.done}
      </Button>
    </Stack>
  );
}

/** The profile's "Sessions and devices" and "API keys" sections, fed by one chart. */
export function CredentialsSections() {
  const auth = useAuthRef();
  const actor = CredentialsChart.useActor({ input: { auth }, effects: { notify: toastEffect } });
  const view = useDeferredSelector(actor, (s) => ({
    failed: s.matches('failed'),
    busy: s.hasTag('busy') || s.hasTag('loading'),
    creating: s.matches('creatingKey'),
    loaded: s.context.loaded,
    sessions: s.context.sessions,
    apiKeys: s.context.apiKeys,
    createdKey: s.context.createdKey,
    // Which session or key asks "are you sure?"; the other buttons wait meanwhile.
    endAsked: s.matches('confirmingEnd') ? s.context.pendingId : null,
    revokeAsked: s.matches('confirmingRevoke') ? s.context.pendingId : null,
    asking: s.matches('confirmingEnd') || s.matches('confirmingRevoke'),
  }));
  const answer: Answer = { onConfirm: () => actor.send({ type: 'change.confirm' }), onCancel: () => actor.send({ type: 'change.cancel' }) };
  const others = view.sessions.filter((session) => !session.current).length;
  const failure = view.failed && (
    <HStack gap="3">
      <Text color="fg.error">{t.loadFailed}</Text>
      <Button size="sm" variant="outline" onClick={() => actor.send({ type: 'credentials.retry' })}>
        {t.retry}
      </Button>
    </HStack>
  );
  return (
    <>
      <Section
        anchor="sessions"
        title={t.sessionsTitle}
        lead={t.sessionsLead}
        action={
          others > 0 && (
            <Button size="sm" variant="outline" colorPalette="red" onClick={() => actor.send({ type: 'sessions.endOthers' })} disabled={view.busy || view.asking}>
              {t.endOthers}
            </Button>
          )
        }
      >
        {failure}
        {view.sessions.length > 0 && (
          <Stack as="ul" gap="3" listStyleType="none">
            {view.sessions.map((session) => (
              <SessionItem
                key={session.id}
                session={session}
                busy={view.busy || view.asking}
                asking={view.endAsked === session.id}
                onEnd={() => actor.send({ type: 'session.end', id: session.id })}
                answer={answer}
              />
            ))}
          </Stack>
        )}
      </Section>
      <Section title={t.keysTitle} lead={t.keysLead}>
        {failure}
        {view.createdKey && <CreatedKey value={view.createdKey} onDone={() => actor.send({ type: 'key.dismiss' })} />}
        {view.loaded && !view.failed && view.apiKeys.length === 0 && <Text color="fg.muted">{t.noKeys}</Text>}
        {view.apiKeys.length > 0 && (
          <Stack as="ul" gap="3" listStyleType="none">
            {view.apiKeys.map((apiKey) => (
              <KeyItem
                key={apiKey.id}
                apiKey={apiKey}
                busy={view.busy || view.asking}
                asking={view.revokeAsked === apiKey.id}
                onRevoke={() => actor.send({ type: 'key.revoke', id: apiKey.id })}
                answer={answer}
              />
            ))}
          </Stack>
        )}
        <NewKeyForm busy={view.creating} onCreate={(key) => actor.send({ type: 'key.create', key })} />
      </Section>
    </>
  );
}
