import * as yup from 'yup';
import type { MessageKey } from '../shared/messages';

// The messages are the catalogue's names (machines/shared/messages.ts): the page words them.

/** Product-spec section 5, "Support form". */
export const supportSchema = yup.object({
  title: yup.string().trim().min(1, 'support.validation.title').required('support.validation.title'),
  description: yup.string().trim().min(10, 'support.validation.description').required('support.validation.description'),
  email: yup.string().trim().email('support.validation.email').required('support.validation.email'),
  telephone: yup.string().trim().min(1, 'support.validation.telephone').required('support.validation.telephone'),
});

export type SupportValues = { title: string; description: string; email: string; telephone: string };
export type SupportField = keyof SupportValues;
export type SupportErrors = Partial<Record<SupportField, MessageKey>>;

export const SUPPORT_FIELDS: readonly SupportField[] = ['title', 'description', 'email', 'telephone'];
export const EMPTY_SUPPORT_VALUES: SupportValues = { title: '', description: '', email: '', telephone: '' };

/** Every field's first error, or {} when the values are valid. */
export function validateSupport(values: SupportValues): SupportErrors {
  try {
    supportSchema.validateSync(values, { abortEarly: false });
    return {};
  } catch (error) {
    const errors: SupportErrors = {};
    for (const issue of (error as yup.ValidationError).inner) {
      const field = issue.path as SupportField;
      errors[field] ??= issue.message as MessageKey;
    }
    return errors;
  }
}
