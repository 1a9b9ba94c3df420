import * as yup from 'yup';
import { PASSWORD_MIN_LENGTH } from '../../contract/validation';

/**
 * Product-spec section 5, "Change password": the field rules. That the new password and its
 * confirmation match is the chart's guard, because the spec answers a mismatch with a toast.
 */
export const changePasswordSchema = yup.object({
  current_password: yup.string().required('profile.currentPasswordRequired'),
  new_password: yup.string().required('profile.passwordShort').min(PASSWORD_MIN_LENGTH, 'profile.passwordShort'),
  confirm_password: yup.string().default(''),
});
export type ChangePasswordValues = yup.InferType<typeof changePasswordSchema>;
