export const forgotPassword = {
  title: 'Forgot password',
  heading: 'Reset your password',
  lead: 'Enter the email of your account and we will send you a link to choose a new password.',
  email: 'Email',
  submit: 'Send reset link',
  busy: 'Sending...',
  sentTitle: 'Check your inbox',
  sentText: 'If an account exists for that email, a reset link is on its way. The link works once and expires in 1 hour.',
  failedTitle: 'Could not send the link',
  backToLogin: 'Back to sign in',
} as const;
