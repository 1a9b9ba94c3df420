/**
 * Every text the user sees, in one catalogue. Wording taken from the product spec is a
 * requirement, word for word; tests import these rather than retyping them.
 */
export const messages = {
  layout: {
    skipToContent: 'Skip to content',
    homeLink: (brand: string) => `${brand} home`,
    mainNav: 'Main',
    dashboard: 'Dashboard',
    subscription: 'Subscription',
    profile: 'Profile',
    welcome: (fullName: string) => `Welcome, ${fullName}`,
    logout: 'Logout',
    login: 'Login',
    signUp: 'Sign Up',
  },
  footer: {
    tagline: 'AI help for formulas, analysis and answers, right inside your spreadsheet.',
    product: 'Product',
    features: 'Features',
    getAddOn: 'Get Add-on',
    pricing: 'Pricing',
    supportAndLegal: 'Support & Legal',
    support: 'Support',
    privacy: 'Privacy Policy',
    terms: 'Terms of Service',
    contact: 'Contact',
    contactLead: 'Questions? Write to us at',
    copyright: (year: number, brand: string) => `© ${year} ${brand}. All rights reserved.`,
    opensInNewTab: '(opens in a new tab)',
  },
  landing: {
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
  },
  legal: {
    lastUpdated: (date: string) => `Last updated ${date}`,
    contents: 'Contents',
  },
  support: {
    title: 'Support',
    heading: 'How can we help?',
    lead: 'Describe the problem and we will get back to you by e-mail.',
    signInNotice: 'Please log in to submit a support request. You can fill in the form now; your draft is kept.',
    signInLink: 'Log in',
    formTitle: 'Support request',
    titleLabel: 'Title',
    descriptionLabel: 'Description',
    emailLabel: 'Email',
    telephoneLabel: 'Telephone',
    submit: 'Submit request',
    contactTitle: 'Contact information',
    contactEmail: 'Email us at',
    responseTitle: 'Response time',
    responseText: 'We typically respond within 24 hours on business days.',
    faqTitle: 'Frequently asked questions',
    faq: [
      {
        q: 'How do I install the add-on?',
        a: 'Install it from the Google Workspace Marketplace, then open it from the Extensions menu in your sheet.',
      },
      {
        q: 'Is my data secure?',
        a: 'Your spreadsheet data is processed in memory only and never stored. Read the details in our',
        link: 'Privacy Policy',
      },
      { q: 'Can I cancel anytime?', a: 'Yes. You can cancel or change your plan at any time from your account.' },
    ],
  },
  notFound: {
    title: 'Page not found',
    code: '404',
    heading: 'Oops! Page not found',
    lead: 'The page you are looking for does not exist or has moved.',
    home: 'Return to Home',
  },
  routeError: {
    heading: 'Something went wrong',
    lead: 'This page could not be shown. Reloading usually fixes it.',
    reload: 'Reload page',
  },
  loading: 'Loading…',
} as const;

/** Replaces `{name}` tokens in catalogue texts that the content modules keep as templates. */
export function fillTokens(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (token, name: string) => values[name] ?? token);
}
