import { Button, Card, Checkbox, Field, Input, Stack, Text } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import * as messages from '../../content/messages';
import type { Team } from '../../../machines/shared/api';

const t = messages.team;

/** Hours typed into the field: a whole number from 1 to 720, or empty for no limit; undefined when it is neither. */
export function parseHours(text: string): number | null | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const hours = /^\d{1,3}$/.test(trimmed) ? Number(trimmed) : 0;
  return hours >= 1 && hours <= 720 ? hours : undefined;
}

type Policy = Pick<Team, 'require_two_factor' | 'session_max_age_hours'>;

/** The team's policy in words: what a plain member sees. */
export function SecurityPolicyText({ team }: { team: Policy }) {
  return (
    <Card.Root variant="outline" maxW="3xl">
      <Card.Body gap="2">
        <Text>{team.require_two_factor ? t.twoFactorRequired : t.twoFactorOptional}</Text>
        <Text>{team.session_max_age_hours === null ? t.noSessionLimit : t.sessionLimit(team.session_max_age_hours)}</Text>
      </Card.Body>
    </Card.Root>
  );
}

/** The team's security policy (admins): the two-step requirement and the session limit, saved together as one change of the page's chart. */
export function TeamSecurity({ team, busy, onSave }: { team: Policy; busy: boolean; onSave: (requireTwoFactor: boolean, sessionMaxAgeHours: number | null) => void }) {
  const [required, setRequired] = useState(team.require_two_factor);
  const [hours, setHours] = useState(team.session_max_age_hours === null ? '' : String(team.session_max_age_hours));
  const [hoursError, setHoursError] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseHours(hours);
    if (parsed === undefined) return setHoursError(true);
    onSave(required, parsed);
  };
  return (
    <form noValidate onSubmit={submit}>
      <Stack gap="6" maxW="xl">
        <Stack gap="1">
          {/* A checkbox (its recipe is in the theme already; a switch's would add to every page's CSS). */}
          <Checkbox.Root checked={required} onCheckedChange={({ checked }) => setRequired(checked === true)} colorPalette="brand">
            <Checkbox.HiddenInput aria-describedby="team-require-two-factor-help" />
            <Checkbox.Control />
            <Checkbox.Label>{t.requireTwoFactor}</Checkbox.Label>
          </Checkbox.Root>
          <Text id="team-require-two-factor-help" color="fg.muted" fontSize="sm" ps="7">
            {t.requireTwoFactorHelp}
          </Text>
        </Stack>
        <Field.Root invalid={hoursError} maxW={{ md: 'md' }}>
          <Field.Label>{t.sessionMaxAge}</Field.Label>
          <Input value={hours} inputMode="numeric" maxLength={4} onChange={(event) => (setHours(event.target.value), setHoursError(false))} />
          {hoursError ? <Field.ErrorText>{t.sessionMaxAgeInvalid}</Field.ErrorText> : <Field.HelperText>{t.sessionMaxAgeHelp}</Field.HelperText>}
        </Field.Root>
        <Button type="submit" variant="outline" disabled={busy} alignSelf="flex-start">
          {t.saveSecurity}
        </Button>
      </Stack>
    </form>
  );
}
