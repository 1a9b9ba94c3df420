import { Button, Field, Heading, HStack, Input, Stack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import { passkeysMachine, type PasskeysEvent } from '../../machines/passkeys/passkeys.machine';
import type { Passkey } from '../../machines/shared/api';
import { useAuthRef } from '../app/auth';
import * as messages from '../content/messages';
import { browserName } from '../lib/browserName';
import { createChartContext, useSelector } from '../lib/chart';
import { usePasskeySupport } from '../lib/usePasskeySupport';
import { Confirm } from './Confirm';
import { SectionCard } from './SectionCard';
import { toastEffect } from './Toaster';

const t = messages.passkeys;
/** The server's bound on a name (server/domain/passkeys.ts). */
const NAME_MAX = 64;

/** The passkeys chart the profile runs; tests hand in one with fake effects. */
export const PasskeysChart = createChartContext(passkeysMachine);

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : t.never);

/** A name field with its two buttons; `required` refuses an empty name in place. */
function NameForm(props: { initial: string; submitText: string; busyText?: string; busy: boolean; required: boolean; onSave(name: string): void; onCancel(): void }) {
  const [name, setName] = useState(props.initial);
  const [empty, setEmpty] = useState(false);
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (props.required && name.trim() === '') return setEmpty(true);
    setEmpty(false);
    props.onSave(name.trim());
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="3" maxW="md">
        <Field.Root invalid={empty} required={props.required}>
          <Field.Label>
            {t.name}
            {props.required && <Field.RequiredIndicator />}
          </Field.Label>
          <Input value={name} onChange={(event) => setName(event.target.value)} maxLength={NAME_MAX} autoComplete="off" autoFocus />
          <Field.ErrorText>{t.nameRequired}</Field.ErrorText>
        </Field.Root>
        <HStack gap="2" wrap="wrap">
          <Button type="submit" size="sm" colorPalette="brand" loading={props.busy} loadingText={props.busyText}>
            {props.submitText}
          </Button>
          <Button size="sm" variant="outline" onClick={props.onCancel} disabled={props.busy}>
            {t.cancel}
          </Button>
        </HStack>
      </Stack>
    </form>
  );
}

interface ItemProps {
  passkey: Passkey;
  /** Another change is under way or asked about: this item's buttons wait. */
  waiting: boolean;
  renaming: { busy: boolean; name: string } | null;
  askingDelete: boolean;
  send(event: PasskeysEvent): void;
}

function PasskeyItem({ passkey, waiting, renaming, askingDelete, send }: ItemProps) {
  return (
    <Stack as="li" aria-label={passkey.name} borderWidth="1px" borderRadius="md" p="4" gap="3">
      {renaming ? (
        <NameForm
          initial={renaming.name}
          submitText={t.saveName}
          busyText={t.saving}
          busy={renaming.busy}
          required
          onSave={(name) => send({ type: 'rename.save', name })}
          onCancel={() => send({ type: 'rename.cancel' })}
        />
      ) : (
        <Text fontWeight="semibold" overflowWrap="anywhere">
          {passkey.name}
        </Text>
      )}
      <Stack as="dl" gap="0.5" fontSize="sm">
        {(
          [
            [t.created, when(passkey.created_at)],
            [t.lastUsed, when(passkey.last_used_at)],
          ] as const
        ).map(([label, value]) => (
          <HStack key={label} gap="2" align="start">
            <Text as="dt" color="fg.muted" minW="24">
              {label}
            </Text>
            <Text as="dd">{value}</Text>
          </HStack>
        ))}
      </Stack>
      {askingDelete ? (
        <Confirm question={t.deleteConfirm} yes={t.confirmDelete} no={t.cancel} onYes={() => send({ type: 'delete.confirm' })} onCancel={() => send({ type: 'delete.cancel' })} />
      ) : (
        !renaming && (
          <HStack gap="2" wrap="wrap">
            <Button size="sm" variant="outline" onClick={() => send({ type: 'passkey.rename', id: passkey.id })} disabled={waiting}>
              {t.rename}
            </Button>
            <Button size="sm" variant="outline" colorPalette="red" onClick={() => send({ type: 'passkey.delete', id: passkey.id })} disabled={waiting}>
              {t.delete}
            </Button>
          </HStack>
        )
      )}
    </Stack>
  );
}

/** The profile's "Passkeys" section, fed by the passkeys chart. */
export function PasskeysSection() {
  const auth = useAuthRef();
  const actor = PasskeysChart.useActor({ input: { auth }, effects: { notify: toastEffect, secondFactorAdded: () => auth.send({ type: 'user.secondFactorAdded' }) } });
  const view = useSelector(actor, (s) => ({
    failed: s.matches('failed'),
    loading: s.hasTag('loading'),
    busy: s.hasTag('busy'),
    prompting: s.matches({ adding: 'preparing' }) || s.matches({ adding: 'prompting' }),
    naming: s.matches({ adding: 'naming' }) || s.matches({ adding: 'saving' }),
    savingNew: s.matches({ adding: 'saving' }),
    renamingId: s.matches('renaming') ? s.context.pendingId : null,
    savingName: s.matches({ renaming: 'saving' }),
    deleteAsked: s.matches('confirmingDelete') ? s.context.pendingId : null,
    idle: s.matches('idle'),
    name: s.context.name,
    passkeys: s.context.passkeys,
  }));
  const supported = usePasskeySupport();
  const send = actor.send;
  return (
    <SectionCard title={t.title} lead={t.lead} busy={view.loading}>
      {view.failed && (
        <HStack gap="3">
          <Text color="fg.error">{t.loadFailed}</Text>
          <Button size="sm" variant="outline" onClick={() => send({ type: 'passkeys.retry' })}>
            {t.retry}
          </Button>
        </HStack>
      )}
      {!view.failed && !view.loading && view.passkeys.length === 0 && <Text color="fg.muted">{t.none}</Text>}
      {view.passkeys.length > 0 && (
        <Stack as="ul" gap="3" listStyleType="none">
          {view.passkeys.map((passkey) => (
            <PasskeyItem
              key={passkey.id}
              passkey={passkey}
              waiting={!view.idle}
              renaming={view.renamingId === passkey.id ? { busy: view.savingName, name: view.name } : null}
              askingDelete={view.deleteAsked === passkey.id}
              send={send}
            />
          ))}
        </Stack>
      )}
      {view.naming ? (
        <Stack gap="3" borderTopWidth="1px" pt="5">
          <Stack gap="1">
            <Heading as="h3" size="md">
              {t.nameTitle}
            </Heading>
            <Text color="fg.muted" fontSize="sm">
              {t.nameLead}
            </Text>
          </Stack>
          <NameForm
            initial={view.name || browserName(navigator.userAgent).slice(0, NAME_MAX)}
            submitText={t.save}
            busyText={t.saving}
            busy={view.savingNew}
            required={false}
            onSave={(name) => send({ type: 'name.save', name })}
            onCancel={() => send({ type: 'name.cancel' })}
          />
        </Stack>
      ) : supported ? (
        <Button colorPalette="brand" alignSelf="flex-start" onClick={() => send({ type: 'passkey.add' })} loading={view.prompting} loadingText={t.adding} disabled={!view.idle}>
          {t.add}
        </Button>
      ) : (
        supported === false && (
          <Text color="fg.muted" fontSize="sm">
            {t.unsupported}
          </Text>
        )
      )}
    </SectionCard>
  );
}
