/**
 * Legal copy for the Privacy Policy and Terms of Service pages.
 *
 * Strings may contain the placeholder tokens {brand}, {generalEmail} and
 * {supportEmail}; the page renderer replaces them (email tokens become
 * mailto links). Do not hard-code the product name or email addresses here.
 */

export interface LegalSection {
  heading: string;
  /** Paragraphs of plain text; may contain {brand}, {generalEmail}, {supportEmail}. */
  paragraphs: string[];
  /** Optional bullet list shown after the paragraphs; same tokens allowed. */
  items?: string[];
}

export interface LegalDocument {
  title: string; // 'Privacy Policy' / 'Terms of Service'
  lastUpdated: string; // 'November 22, 2026'
  intro: string;
  sections: LegalSection[];
}

export const privacyPolicy: LegalDocument = {
  title: 'Privacy Policy',
  lastUpdated: 'November 22, 2026',
  intro:
    '{brand} is an AI assistant add-on for Google Sheets that analyses data, creates and explains formulas, gives step-by-step guides and answers plain-language questions. This Privacy Policy explains what information we collect when you use {brand}, what we deliberately do not collect, how we use and protect the information we hold, and the choices and rights you have. We have tried to keep it short and plain: we collect only what we need to run your account and bill you fairly, and nothing more.',
  sections: [
    {
      heading: 'Information we collect',
      paragraphs: [
        'We collect a small amount of information so that we can create your account, keep you signed in, meter your plan and bill you correctly.',
        "To keep you signed in, {brand} stores access tokens in your browser's local storage. We do not use cookies for authentication, and we do not use any third-party trackers, advertising pixels or analytics tools. You can remove these tokens at any time by signing out or clearing your browser's site data.",
      ],
      items: [
        'Account details: your email address, username and full name.',
        'Password: stored only as a salted one-way hash using argon2id. We never store your password in plain text and cannot see or recover it.',
        'Usage counts: the number of queries you make, token counts and processing time, which we use to meter your plan.',
        'Access tokens: kept in your browser to keep you signed in, as described below.',
        'Messages you send us: if you email us, we keep that correspondence so we can help you.',
      ],
    },
    {
      heading: 'Spreadsheet data we never store',
      paragraphs: [
        'When you ask {brand} a question, the add-on sends the spreadsheet cells and the prompt you submit to our service so the assistant can produce an answer. This spreadsheet data is processed only in memory to produce the answer and is discarded once the answer has been returned.',
        'Your spreadsheet data is never stored: not in our database, not in our logs and not in files. Because we do not keep it, we cannot view it later, share it, sell it or use it to train AI models.',
        'For each query, we record only usage counts: the number of queries, token counts and processing time. These counts contain none of your cell contents or prompt text.',
      ],
    },
    {
      heading: 'How we use your information',
      paragraphs: [
        'We use the limited information we hold only to provide and improve {brand}. We do not sell your information, and we do not use it for advertising.',
      ],
      items: [
        'To create and manage your account and keep you signed in.',
        'To meter usage against your plan limits and to bill you through our payment provider.',
        'To send you service emails, such as account verification, password resets, billing notices and important changes to the service.',
        'To respond to your questions and support requests.',
        'To keep {brand} secure, prevent abuse and fraud, and enforce our Terms of Service.',
        'To understand overall service load and performance using aggregated usage counts.',
        'To comply with our legal obligations.',
      ],
    },
    {
      heading: 'Legal bases for processing',
      paragraphs: [
        'Where data protection laws such as the GDPR apply, we rely on the following legal bases to process your personal information.',
      ],
      items: [
        'Performance of a contract: to create your account, provide the service you signed up for and process payments for your plan.',
        'Legitimate interests: to keep {brand} secure, prevent abuse and understand how the service performs, in ways that do not override your rights.',
        'Legal obligation: to keep records we are required to keep, for example for tax and accounting purposes.',
        'Consent: where we ask for your consent for a specific purpose, you may withdraw it at any time without affecting earlier processing.',
      ],
    },
    {
      heading: 'Data retention',
      paragraphs: [
        'We keep your account data, including your usage counts, for as long as your account exists. When your account is deleted, we delete this data.',
        'You can ask us to delete your account and personal data at any time by contacting support at {supportEmail}. We will complete the deletion within 30 days of your request.',
        'We may keep a limited amount of information for longer where the law requires it, such as billing records needed for tax and accounting purposes. Spreadsheet data is never retained at all, because it is never stored.',
      ],
    },
    {
      heading: 'How we share information',
      paragraphs: [
        'We never sell your personal information, and we do not share it with advertisers or data brokers. We share information only with service providers that help us run {brand}, and only as much as they need to do their job.',
        'Payments are handled by a third-party card payment provider. You enter your card details directly with that provider; we never see or store full card numbers.',
        'We may also disclose information if required by law, to protect the rights, safety or property of our users or others, or as part of a merger, acquisition or sale of assets, in which case this policy will continue to apply to your information.',
      ],
      items: [
        'Payment provider: processes subscription payments and stores your payment details on our behalf.',
        'Hosting provider: runs the servers and database that power {brand}.',
        'Email delivery provider: sends service emails such as password resets and billing notices.',
      ],
    },
    {
      heading: 'Security',
      paragraphs: [
        'We take reasonable technical and organisational measures to protect your information. Data is encrypted in transit using HTTPS, passwords are stored only as salted argon2id hashes, and access to production systems is restricted to those who need it.',
        'Not storing your spreadsheet data is itself one of our strongest protections: data we never keep cannot be exposed.',
        'No method of transmission or storage is completely secure, so we cannot guarantee absolute security. If we become aware of a breach affecting your personal information, we will notify you and the relevant authorities as required by law.',
      ],
    },
    {
      heading: 'Your rights',
      paragraphs: [
        'Depending on where you live, you may have rights over your personal information. We offer the following rights to all users, wherever they are located.',
        'You can update some details directly in your account settings. For any other request, contact us at {supportEmail}; we may need to verify your identity first, and we will respond within 30 days. You also have the right to lodge a complaint with your local data protection authority.',
      ],
      items: [
        'Access: ask for a copy of the personal information we hold about you.',
        'Correction: ask us to correct information that is inaccurate or incomplete.',
        'Deletion: ask us to delete your account and personal information.',
        'Export: ask for your personal information in a portable, machine-readable format.',
        'Objection and restriction: ask us to stop or limit certain processing, where the law allows.',
      ],
    },
    {
      heading: "Children's privacy",
      paragraphs: [
        '{brand} is not directed to children under 13, and children under 13 may not create an account. We do not knowingly collect personal information from children under 13.',
        'If you believe a child under 13 has given us personal information, please contact us at {supportEmail} and we will delete the account and the related information.',
      ],
    },
    {
      heading: 'International data transfers',
      paragraphs: [
        'Our service providers may process information in countries other than the one where you live, which may have different data protection laws.',
        'When we transfer personal information across borders, we use appropriate safeguards required by applicable law, such as standard contractual clauses, to ensure your information remains protected.',
      ],
    },
    {
      heading: 'Changes to this policy',
      paragraphs: [
        'We may update this Privacy Policy from time to time. When we do, we will post the new version on this page and update the "Last updated" date above.',
        'If we make material changes, we will give you notice by email or in the product before they take effect. Continuing to use {brand} after the changes take effect means you accept the updated policy.',
      ],
    },
    {
      heading: 'Contact',
      paragraphs: [
        'If you have questions about this Privacy Policy or how we handle your information, email us at {generalEmail}.',
        'For account, privacy or data requests, such as access, correction, export or deletion, contact our support team at {supportEmail}.',
      ],
    },
  ],
};

export const termsOfService: LegalDocument = {
  title: 'Terms of Service',
  lastUpdated: 'November 22, 2026',
  intro:
    'These Terms of Service ("Terms") govern your use of {brand}, an AI assistant add-on for Google Sheets, together with its website and related services (the "Service"). Please read them carefully. They explain what you can expect from us, what we expect from you, and how billing, cancellation and liability work.',
  sections: [
    {
      heading: 'Acceptance of these terms',
      paragraphs: [
        'By creating an account or using the Service, you agree to these Terms and to our Privacy Policy. If you do not agree, do not use the Service.',
        'If you use {brand} on behalf of an organisation, you confirm that you have authority to accept these Terms for that organisation, and "you" includes that organisation.',
        '{brand} is an independent product and is not affiliated with or endorsed by Google. Your use of Google Sheets remains subject to the terms of Google.',
      ],
    },
    {
      heading: 'Eligibility and your account',
      paragraphs: [
        'You must be at least 13 years old to use the Service. Children under 13 may not create an account or use {brand}. If you are under the age of majority where you live, you may use the Service only with the permission of a parent or legal guardian who agrees to these Terms.',
        'To use {brand} you need an account with a valid email address, a username, your full name and a password. You agree to provide accurate information and keep it up to date.',
        'You are responsible for keeping your password secure and for all activity that happens under your account. Tell us promptly at {supportEmail} if you believe your account has been accessed without your permission.',
        'Accounts are personal. Do not share your login details or let others use your account, except for members you add to a Team plan where that feature is available.',
      ],
    },
    {
      heading: 'Plans and billing',
      paragraphs: [
        'All new users start on the Free plan with 100 AI queries per month. You can upgrade to a paid plan at any time. Prices are in US dollars, and applicable taxes may be added where required by law.',
        'Paid plans are billed monthly in advance through our third-party card payment provider and renew automatically until cancelled. We never see or store your full card number.',
        'You can change plans anytime; the change takes effect from the next billing cycle. Query allowances reset at the start of each billing cycle, and unused queries do not roll over.',
        'You can cancel from your account settings or by contacting support at {supportEmail}. Cancellation takes effect at the end of the current billing cycle, you keep your paid features until then, and your account then returns to the Free plan. Except where required by law, fees already paid are not refunded for partial billing periods.',
        'We may change our prices with reasonable advance notice. A price change will apply from your next billing cycle after the notice period, and you may cancel before it takes effect.',
      ],
      items: [
        'Free: $0 per month, 100 AI queries per month.',
        'Professional: $19 per month, 1,000 AI queries per month.',
        'Team: $49 per month, unlimited AI queries, subject to the acceptable use rules in these Terms.',
      ],
    },
    {
      heading: 'Acceptable use',
      paragraphs: [
        'You agree to use {brand} lawfully and responsibly. We may suspend or limit access if your use threatens the security, stability or availability of the Service for others.',
      ],
      items: [
        'Do not use the Service for anything illegal, harmful, fraudulent or deceptive.',
        'Do not submit data you have no right to use or share, or data whose processing would breach the rights of others.',
        'Do not attempt to gain unauthorised access to the Service, other accounts or our systems, or interfere with their normal operation.',
        'Do not reverse engineer, scrape or copy the Service, except where the law expressly allows it.',
        'Do not resell the Service or use automated means to send queries in a way that circumvents plan limits or places an unreasonable load on our systems.',
        'Do not use the Service to build a competing product or to generate content that is abusive or infringes the rights of others.',
      ],
    },
    {
      heading: 'Your content',
      paragraphs: [
        'You own your spreadsheets, your data and the prompts you send to {brand}. We claim no ownership rights over them.',
        'You give us permission to process the spreadsheet cells and prompts you send only as needed to produce an answer for you. This data is processed only in memory and is never stored: not in our database, logs or files. We record only usage counts (number of queries, token counts and processing time) for metering.',
        'Subject to these Terms, you may use the answers, formulas and guides that {brand} produces for you for any lawful purpose.',
      ],
    },
    {
      heading: 'AI output',
      paragraphs: [
        '{brand} uses artificial intelligence to generate formulas, explanations, analyses and guides. AI output can be incomplete, inaccurate or unsuitable for your situation, even when it appears confident.',
        'Always check formulas and results before relying on them, especially for financial, legal, medical, tax or other important decisions. You are responsible for how you use the output and for the decisions you make based on it.',
      ],
    },
    {
      heading: 'Availability and support',
      paragraphs: [
        'We work hard to keep {brand} available and reliable, but we do not guarantee that the Service will be uninterrupted or error-free. We may need to perform maintenance, and the Service depends on third parties such as Google Sheets and our hosting provider.',
        'We may add, change or remove features over time. If we make a change that materially reduces the features of a paid plan, we will let you know in advance.',
        'If you need help, contact us at {supportEmail}. Our team typically responds within 24 hours on business days.',
      ],
    },
    {
      heading: 'Termination',
      paragraphs: [
        'You may stop using {brand} at any time. You can cancel a paid plan from your account settings, and you can ask us to delete your account by contacting support at {supportEmail}.',
        'We may suspend or terminate your account if you seriously or repeatedly breach these Terms, if your use creates legal risk or harms others, or if required by law. Where reasonable, we will give you notice and an opportunity to fix the problem first.',
        'When your account is terminated, your right to use the Service ends and we delete your account data as described in our Privacy Policy. Sections that by their nature should survive termination, including those on disclaimers, limitation of liability and governing law, will continue to apply.',
      ],
    },
    {
      heading: 'Disclaimers',
      paragraphs: [
        'To the fullest extent permitted by law, the Service is provided "as is" and "as available", without warranties of any kind, whether express or implied, including warranties of merchantability, fitness for a particular purpose, accuracy and non-infringement.',
        'We do not warrant that the Service or its output will meet your requirements or be accurate, complete or reliable. Some jurisdictions do not allow certain warranties to be excluded, so some of these exclusions may not apply to you.',
      ],
    },
    {
      heading: 'Limitation of liability',
      paragraphs: [
        'To the fullest extent permitted by law, {brand} and its team will not be liable for any indirect, incidental, special, consequential or punitive damages, or for any loss of profits, revenue, data or goodwill, arising from or related to your use of the Service.',
        'To the fullest extent permitted by law, our total liability for all claims arising from or related to the Service or these Terms is limited to the amount you paid us for the Service in the 12 months preceding the event giving rise to the claim.',
        'Nothing in these Terms limits liability that cannot be limited under applicable law, such as liability for fraud or for death or personal injury caused by negligence.',
      ],
    },
    {
      heading: 'Changes to these terms',
      paragraphs: [
        'We may update these Terms from time to time. When we do, we will post the new version on this page and update the "Last updated" date above.',
        'If we make material changes, we will give you notice by email or in the product before they take effect. If you continue to use {brand} after the changes take effect, you accept the updated Terms; if you do not agree, you may cancel and stop using the Service.',
      ],
    },
    {
      heading: 'Governing law',
      paragraphs: [
        'These Terms are governed by the laws of the jurisdiction in which {brand} is established, without regard to its conflict-of-law rules. Any disputes will be resolved by the competent courts of that jurisdiction.',
        'If you are a consumer, nothing in these Terms affects any mandatory rights you have under the consumer protection laws of the country where you live.',
        'If any part of these Terms is found unenforceable, the rest will remain in effect. Our failure to enforce a provision is not a waiver of our right to do so later.',
      ],
    },
    {
      heading: 'Contact',
      paragraphs: [
        'If you have questions about these Terms, email us at {generalEmail}.',
        'For help with your account, billing, cancellations or the Service itself, contact our support team at {supportEmail}.',
      ],
    },
  ],
};
