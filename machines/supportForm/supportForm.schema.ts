import * as yup from 'yup';
import * as messages from '../../src/content/messages';

const t = messages.support.validation;

/** Product-spec section 5, "Support form". */
export const supportSchema = yup.object({
  title: yup.string().trim().min(1, t.title).required(t.title),
  description: yup.string().trim().min(10, t.description).required(t.description),
  email: yup.string().trim().email(t.email).required(t.email),
  telephone: yup.string().trim().min(1, t.telephone).required(t.telephone),
});

export type SupportValues = { title: string; description: string; email: string; telephone: string };
export type SupportField = keyof SupportValues;
export type SupportErrors = Partial<Record<SupportField, string>>;

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
      errors[field] ??= issue.message;
    }
    return errors;
  }
}
