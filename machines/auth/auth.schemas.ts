import * as yup from 'yup';
import { EMAIL_PATTERN, PASSWORD_MIN_LENGTH, USERNAME_PATTERN, type ValidationMessages } from '../../contract/validation';
import * as messages from '../../src/content/messages';

const r: ValidationMessages = messages.register;
const l = messages.login;

/**
 * A confirmation must equal the password, and only that: with both empty, 'Password is required'
 * says it all. (Formik hands an empty field to yup as undefined.)
 */
const sameAs = (password: string) =>
  yup
    .string()
    .default('')
    .test('same-as-password', r.passwordsMismatch, (value, context) => value === ((context.parent as Record<string, string | undefined>)[password] ?? ''));

/** Product-spec section 5, "Register (client side)". */
export const registerSchema = yup.object({
  full_name: yup.string().trim().required(r.fullNameRequired),
  username: yup
    .string()
    .trim()
    .required(r.usernameRequired)
    .matches(USERNAME_PATTERN, r.usernameInvalid),
  email: yup.string().trim().required(r.emailRequired).matches(EMAIL_PATTERN, r.emailInvalid),
  password: yup.string().required(r.passwordRequired).min(PASSWORD_MIN_LENGTH, r.passwordShort),
  confirm_password: sameAs('password'),
});
export type RegisterValues = yup.InferType<typeof registerSchema>;

/** Product-spec section 5, "Login": both fields required. */
export const loginSchema = yup.object({
  email: yup.string().trim().required(l.emailRequired),
  password: yup.string().required(l.passwordRequired),
});
export type LoginValues = yup.InferType<typeof loginSchema>;

export const forgotPasswordSchema = yup.object({
  email: yup.string().trim().required(r.emailRequired).matches(EMAIL_PATTERN, r.emailInvalid),
});

export const resetPasswordSchema = yup.object({
  new_password: yup.string().required(r.passwordRequired).min(PASSWORD_MIN_LENGTH, r.passwordShort),
  confirm_password: sameAs('new_password'),
});
