import type { Message } from '../../machines/shared/messages';
import type { NotifyParams } from '../../machines/shared/notify';
import { chartTexts } from '../../src/content/chartTexts';
import { say } from '../../src/content/say';
import type { SupportMailWords } from '../../machines/supportForm/supportForm.actors';
import * as messages from '../../src/content/messages';

/** A chart's message in the catalogue's words, as the views word it. */
export const word = (message: Message): string => say(message, chartTexts);

/** A chart's notification with its title and sentence worded, as the toast shows them. */
export const worded = ({ type, title, description }: NotifyParams) => ({ type, title: word(title), ...(description === undefined ? {} : { description: word(description) }) });

/** The support mail's words, as the support page hands them to its chart. */
export const SUPPORT_MAIL: SupportMailWords = { ...messages.support.mail, unknownUser: messages.support.unknownUser, unknownId: messages.support.unknownId };
