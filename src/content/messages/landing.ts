export const landing = {
  title: (brand: string) => `${brand}: the AI assistant for your spreadsheets`,
  eyebrow: 'AI add-on for Google Sheets',
  heroTitle: 'Ask your spreadsheet anything.',
  heroLead:
    'Analyse data, create and explain formulas, follow step-by-step guides and get plain-language answers without leaving your sheet.',
  tryFree: 'Try Free Today',
  getAddOn: 'Get Add-on',
  socialProof: 'Trusted by over 10,000 users',
  privacyNote: 'Your spreadsheet data is processed in memory and never stored.',
  featuresTitle: 'Everything you need to work smarter with data',
  featuresLead: 'One assistant for the four jobs that eat most of your spreadsheet time.',
  features: [
    {
      title: 'Data Analysis & Insights',
      text: 'Select a range and get summaries, trends and outliers explained in plain language.',
    },
    {
      title: 'Formula Creation',
      text: 'Describe what you need and get a working formula, with every part explained.',
    },
    {
      title: 'User Guides',
      text: 'Step-by-step guides for pivot tables, charts, lookups and more, matched to your sheet.',
    },
    {
      title: 'Smart Queries',
      text: 'Ask questions about your data the way you would ask a colleague.',
    },
  ],
  pricingTitle: 'Simple, transparent pricing',
  pricingLead: 'Start free. Upgrade when the assistant becomes part of your day.',
  mostPopular: 'Most Popular',
  perMonth: '/month',
  choosePlan: (plan: string) => (plan === 'Free' ? 'Start for free' : `Choose ${plan}`),
  testimonialsTitle: 'Loved by spreadsheet people',
  testimonials: [
    {
      quote:
        'I used to spend an hour every Monday building the sales summary. Now I ask for it and check the formulas it wrote.',
      name: 'Maria Lopez',
      role: 'Sales operations lead',
    },
    {
      quote:
        'The formula explanations are the best part. I finally understand the INDEX/MATCH sheets my team inherited.',
      name: 'David Chen',
      role: 'Financial analyst',
    },
    {
      quote: 'We rolled it out to the whole team in an afternoon. The guides answer most questions before they reach me.',
      name: 'Priya Natarajan',
      role: 'Operations manager',
    },
  ],
  rating: (stars: number) => `Rated ${stars} out of 5 stars`,
  ctaTitle: 'Ready to get more out of your spreadsheets?',
  ctaLead: 'Create a free account in a minute. No credit card needed.',
  startTrial: 'Start Free Trial',
} as const;
