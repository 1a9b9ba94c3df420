export const subscription = {
  title: 'Subscription',
  heading: 'Choose Your Plan',
  lead: 'Start free and upgrade when the assistant becomes part of your day.',
  currentTitle: 'Current Subscription',
  plan: 'Plan',
  status: 'Status',
  nextBilling: 'Next billing date',
  /** Instead of the next billing date once a downgrade is scheduled: nothing more will be charged. */
  planEnds: 'Plan ends',
  planEndsOn: (plan: string, date: string, next: string) => `${plan} ends on ${date}; then ${next}`,
  /** A team member's Team plan: the team's owner pays for it. */
  paidBy: 'Paid by',
  paidByTeam: 'Your team',
  ownTitle: 'Your own subscription',
  ownText: (plan: string) =>
    plan === 'Free'
      ? 'Your team pays for your Team plan while you are in it. Your own plan is Free: nothing is billed, and it applies again if you leave the team.'
      : `Your team pays for your Team plan while you are in it. Your own ${plan} subscription is separate: it keeps billing until you change it below, and applies again if you leave the team.`,
  ownPlan: 'Your own plan',
  teamPlan: 'Your team’s plan',
  throughTeam: 'Through your team',
  monthlyLimit: 'Monthly queries limit',
  dailyLimit: 'Daily tokens limit',
  plansTitle: 'Plans',
  currentPlan: 'Current Plan',
  downgrade: 'Downgrade',
  upgradeTo: (plan: string) => `Upgrade to ${plan}`,
  /** A plan's button while the current plan is not known (the subscription did not load). */
  choose: (plan: string) => `Choose ${plan}`,
  checkoutBusy: 'Opening checkout...',
  checkoutFailed: 'Error',
  checkoutFailedText: 'Failed to create checkout session. Please try again.',
  paymentSucceeded: 'Payment successful',
  paymentSucceededText: (plan: string) => `You're now on the ${plan} plan.`,
  faqTitle: 'Frequently Asked Questions',
  faq: [
    {
      q: 'Can I change my plan anytime?',
      a: 'Yes. You can change your plan at any time; the change takes effect with your next billing cycle. An upgrade starts a new cycle as soon as the payment succeeds.',
    },
    {
      q: 'Do unused queries roll over?',
      a: 'No. Your monthly queries start again at the beginning of each month, and unused queries do not roll over.',
    },
    {
      q: 'What plan do new users start on?',
      a: 'All new users start on the Free plan with 100 queries per month.',
    },
    {
      q: 'How do I cancel?',
      a: 'Cancel from your account settings by choosing Downgrade on the Free plan, or contact support and we will do it for you.',
    },
  ],
} as const;
