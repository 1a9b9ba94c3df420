import { Button, Dialog, Portal, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import type { TeamChange } from '../../../machines/team/team.actors';
import type { Team, TeamMember } from '../../../machines/shared/api';
import * as messages from '../../content/messages';

const t = messages.team;

/** What a change asking first says: removing someone, leaving, or handing ownership over (named). */
function confirmation(change: TeamChange, userId: string, team: Team, members: TeamMember[]): { title: string; text: string; action: string } | null {
  if (change.kind !== 'remove' && change.kind !== 'transfer') return null;
  const name = members.find((member) => member.user_id === change.userId)?.full_name ?? '';
  if (change.kind === 'transfer') return { title: t.transferTitle(name), text: t.transferConfirm(name, team.name), action: t.transferAction };
  if (change.userId === userId) return { title: t.leaveTitle, text: t.leaveConfirm, action: t.confirm };
  return { title: t.removeTitle(name), text: t.removeConfirm(name), action: t.confirm };
}

/** The dialog of the chart's `confirming` state: Confirm goes on with the change, Cancel (or Escape) drops it. */
export default function ChangeConfirmation({ change, userId, team, members, onConfirm, onCancel }: {
  change: TeamChange | null;
  userId: string;
  team: Team;
  members: TeamMember[];
  onConfirm: () => void;
  onCancel: () => void;
}): ReactNode {
  const words = change && confirmation(change, userId, team, members);
  return (
    <Dialog.Root role="alertdialog" open={words !== null} onOpenChange={({ open }) => !open && onCancel()} placement="center" motionPreset="none">
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner px="4">
          <Dialog.Content>
            <Dialog.Header>
              <Dialog.Title>{words?.title}</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>
              <Text>{words?.text}</Text>
            </Dialog.Body>
            <Dialog.Footer>
              <Button variant="outline" onClick={onCancel}>
                {t.cancel}
              </Button>
              <Button colorPalette="red" onClick={onConfirm}>
                {words?.action}
              </Button>
            </Dialog.Footer>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
