import * as yup from 'yup';
import { EMAIL_PATTERN, PASSWORD_MIN_LENGTH, USERNAME_PATTERN } from '../../contract/validation';

// The messages are the catalogue's names (machines/shared/messages.ts): the form words them.

/**
 * A confirmation must equal the password, and only that: with both empty, 'Password is required'
 * says it all. (Formik hands an empty field to yup as undefined.)
 */
const sameAs = (password: string) =>
  yup
    .string()
    .default('')
    .test('same-as-password', 'register.passwordsMismatch', (value, context) => value === ((context.parent as Record<string, string | undefined>)[password] ?? ''));

/** Product-spec section 5, "Register (client side)". */
export const registerSchema = yup.object({
  full_name: yup.string().trim().required('register.fullNameRequired'),
  username: yup
    .string()
    .trim()
    .required('register.usernameRequired')
    .matches(USERNAME_PATTERN, 'register.usernameInvalid'),
  email: yup.string().trim().required('register.emailRequired').matches(EMAIL_PATTERN, 'register.emailInvalid'),
  password: yup.string().required('register.passwordRequired').min(PASSWORD_MIN_LENGTH, 'register.passwordShort'),
  confirm_password: sameAs('password'),
});
export type RegisterValues = yup.InferType<typeof registerSchema>;

/** Product-spec section 5, "Login": both fields required. */
export const loginSchema = yup.object({
  email: yup.string().trim().required('login.emailRequired'),
  password: yup.string().required('login.passwordRequired'),
});
export type LoginValues = yup.InferType<typeof loginSchema>;

/** The second step: an app's code is six digits (a space in the middle, as apps show it, is fine); a recovery code is checked by the server. */
export const secondFactorSchemas = {
  totp: yup.object({ code: yup.string().trim().required('secondStep.codeRequired').matches(/^\d{3} ?\d{3}$/, 'secondStep.codeInvalid') }),
  recovery_code: yup.object({ code: yup.string().trim().required('secondStep.codeRequired') }),
};
export type SecondFactorValues = yup.InferType<typeof secondFactorSchemas.recovery_code>;

export const forgotPasswordSchema = yup.object({
  email: yup.string().trim().required('register.emailRequired').matches(EMAIL_PATTERN, 'register.emailInvalid'),
});

export const resetPasswordSchema = yup.object({
  new_password: yup.string().required('register.passwordRequired').min(PASSWORD_MIN_LENGTH, 'register.passwordShort'),
  confirm_password: sameAs('new_password'),
});
