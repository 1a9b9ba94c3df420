import * as yup from 'yup';

// The messages are the catalogue's names (machines/shared/messages.ts): the form words them.

/** The app's first code: six digits (a space in the middle, as apps show it, is fine). */
export const totpCodeSchema = yup.object({ code: yup.string().trim().required('security.codeRequired').matches(/^\d{3} ?\d{3}$/, 'security.codeInvalid') });
export type TotpCodeValues = yup.InferType<typeof totpCodeSchema>;

export const passwordSchema = yup.object({ password: yup.string().required('security.passwordRequired') });
export type PasswordValues = yup.InferType<typeof passwordSchema>;
