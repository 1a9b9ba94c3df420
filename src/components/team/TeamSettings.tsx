import { Button, Card, Field, Input, Link, Stack, Text } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { RouterLink } from '../../app/RouterLink';
import * as messages from '../../content/messages';
import type { Team, TeamMember } from '../../../machines/shared/api';
import { parseCap } from './TeamMembers';

const t = messages.team;

/** One field with its Save button, below it on a phone and beside it from a tablet on. */
function OneFieldForm({ label, help, error, value, onChange, onSubmit, submit, busy, inputMode }: {
  label: string;
  help?: string;
  error: string | null;
  value: string;
  onChange: (value: string) => void;
  onSubmit: () => void;
  submit: string;
  busy: boolean;
  inputMode?: 'numeric';
}) {
  return (
    <form
      noValidate
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      <Stack direction={{ base: 'column', md: 'row' }} gap="3" align={{ md: 'flex-start' }}>
        <Field.Root invalid={error !== null} flex="1" maxW={{ md: 'md' }}>
          <Field.Label>{label}</Field.Label>
          <Input value={value} inputMode={inputMode} onChange={(event) => onChange(event.target.value)} maxLength={inputMode ? 7 : 100} />
          {error !== null ? <Field.ErrorText>{error}</Field.ErrorText> : help && <Field.HelperText>{help}</Field.HelperText>}
        </Field.Root>
        <Button type="submit" variant="outline" mt={{ md: '6' }} disabled={busy} alignSelf={{ base: 'flex-start', md: 'auto' }}>
          {submit}
        </Button>
      </Stack>
    </form>
  );
}

/** Rename and the default cap for new members (admins): each sends its change to the page's chart. */
export function TeamSettings({ team, busy, onRename, onDefaultCap }: { team: Team; busy: boolean; onRename: (name: string) => void; onDefaultCap: (cap: number | null) => void }) {
  const [name, setName] = useState(team.name);
  const [nameError, setNameError] = useState<string | null>(null);
  const [cap, setCap] = useState(team.default_monthly_query_cap === null ? '' : String(team.default_monthly_query_cap));
  const [capError, setCapError] = useState<string | null>(null);
  return (
    <Stack gap="6">
      <OneFieldForm
        label={t.teamName}
        error={nameError}
        value={name}
        onChange={(value) => (setName(value), setNameError(null))}
        onSubmit={() => (name.trim() === '' ? setNameError(t.nameRequired) : onRename(name.trim()))}
        submit={t.saveName}
        busy={busy}
      />
      <OneFieldForm
        label={t.defaultCap}
        help={t.defaultCapHelp}
        error={capError}
        value={cap}
        inputMode="numeric"
        onChange={(value) => (setCap(value), setCapError(null))}
        onSubmit={() => {
          const parsed = parseCap(cap);
          if (parsed === undefined) return setCapError(t.capInvalid);
          onDefaultCap(parsed);
        }}
        submit={t.saveDefaultCap}
        busy={busy}
      />
    </Stack>
  );
}

/** Who manages the Team plan; to the owner, how many members a downgrade or a cancellation takes it from. */
export function TeamBilling({ owner, members }: { owner: boolean; members: TeamMember[] }) {
  const ownerName = members.find((member) => member.role === 'owner')?.full_name ?? '';
  return (
    <Card.Root variant="outline" maxW="3xl">
      <Card.Body gap="3">
        <Text>{owner ? t.billingOwner : t.billingOther(ownerName)}</Text>
        {owner && (
          <>
            <Text color="orange.fg" fontWeight="medium">
              {t.downgradeWarning(members.length)}
            </Text>
            <Link asChild colorPalette="brand" fontWeight="medium" alignSelf="flex-start">
              <RouterLink to="/subscription">{t.manageBilling}</RouterLink>
            </Link>
          </>
        )}
      </Card.Body>
    </Card.Root>
  );
}

