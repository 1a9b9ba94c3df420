/** The second step of a sign-in for an account with a second factor (src/components/SecondStep.tsx). */
export const secondStep = {
  title: 'Two-step verification',
  heading: 'Two-step verification',
  totpLead: 'Open your authenticator app and enter the 6-digit code it shows for SheetMind.',
  recoveryLead: 'Enter one of the recovery codes you saved when you turned on two-step sign-in. Each code works once.',
  totpLabel: 'Authentication code',
  recoveryLabel: 'Recovery code',
  submit: 'Verify',
  busy: 'Verifying...',
  useRecovery: 'Use a recovery code instead',
  useTotp: 'Use your authenticator app instead',
  usePasskey: 'Use a passkey instead',
  back: 'Back to sign in',
  codeRequired: 'Enter the code',
  codeInvalid: 'The code is 6 digits',
} as const;
