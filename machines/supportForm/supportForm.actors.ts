import { fromPromise } from 'xstate';
import { EMPTY_SUPPORT_VALUES, SUPPORT_FIELDS, type SupportValues } from './supportForm.schema';

/** The local-storage key of the draft (product spec, section 3). */
export const DRAFT_KEY = 'supportFormData';

export interface Submitter {
  id: string;
  full_name: string;
}

/** The mail's words, the view's to give (the catalogue's `support.mail`, and the words for an unknown submitter). */
export interface SupportMailWords {
  title: string;
  email: string;
  phone: string;
  description: string;
  submittedBy: string;
  userId: string;
  unknownUser: string;
  unknownId: string;
}

export interface SubmitInput {
  values: SupportValues;
  submitter: Submitter | null;
  supportEmail: string;
  mail: SupportMailWords;
}

/** Reads the saved draft; a corrupt one is an error (the chart logs it and starts empty). */
export function readDraft(storage: Storage = localStorage): Partial<SupportValues> {
  const text = storage.getItem(DRAFT_KEY);
  if (!text) return {};
  const parsed: unknown = JSON.parse(text);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('The saved support draft is not an object');
  const draft: Partial<SupportValues> = {};
  for (const field of SUPPORT_FIELDS) {
    const value = (parsed as Record<string, unknown>)[field];
    if (typeof value === 'string') draft[field] = value;
  }
  return draft;
}

/** The mail-composition link of spec §7: the title as subject, every field and the submitter in the body. */
export function supportMailto({ values, submitter, supportEmail, mail: m }: SubmitInput): string {
  const body = [
    `${m.title}: ${values.title}`,
    `${m.email}: ${values.email}`,
    `${m.phone}: ${values.telephone}`,
    '',
    `${m.description}:`,
    values.description,
    '',
    `${m.submittedBy}: ${submitter?.full_name || m.unknownUser}`,
    `${m.userId}: ${submitter?.id || m.unknownId}`,
  ].join('\n');
  return `mailto:${supportEmail}?subject=${encodeURIComponent(values.title)}&body=${encodeURIComponent(body)}`;
}

/** Opens the user's mail program with a link click, which browsers allow from a user action. */
export function openMailComposer(url: string): void {
  const link = document.createElement('a');
  link.href = url;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
}

export const supportFormActors = {
  loadDraft: fromPromise<Partial<SupportValues>>(async () => readDraft()),
  submit: fromPromise<void, SubmitInput>(async ({ input }) => openMailComposer(supportMailto(input))),
};

export { EMPTY_SUPPORT_VALUES };
