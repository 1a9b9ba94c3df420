export const guide = {
  title: 'Quick Start Guide',
  lead: 'Three steps from here to answers in your spreadsheet.',
  steps: [
    { title: 'Install the add-on', text: 'Install it from the Google Workspace Marketplace, then open any spreadsheet and choose Extensions, then the add-on, then Open.' },
    {
      title: 'Connect it with a code',
      text: 'In the add-on choose Connect. It shows an 8-letter code: open the link it gives (or this site’s Connect page), check the code and approve. The add-on continues on its own.',
    },
    { title: 'Ask your first question', text: 'Select a range of cells and ask a question, or describe the formula you need.' },
  ],
  connectPage: 'Open the Connect page',
  tryTitle: 'Try it here first',
  tryLead: 'Ask the assistant about this sample table, right in the page, as the add-on would.',
  sampleCaption: 'Sample sales table',
  prompt: 'What is the total Revenue for North?',
  ask: 'Ask for the formula',
  asking: 'Asking...',
  counts: 'This is a real query: it counts toward your plan’s monthly queries and daily tokens, like any query from the add-on.',
  answerTitle: 'The assistant’s answer',
  formulaTitle: 'Formula',
  formulaValue: (value: string) => `Its value on the sample table: ${value}`,
  formulaChecked: 'Checked: it parses and gives this value on the sample table.',
  formulaUnchecked: (error: string) => `Not checked: the formula engine answered ${error}.`,
  usageNow: (queries: number, tokens: number) =>
    `This month: ${queries.toLocaleString()} ${queries === 1 ? 'query' : 'queries'}. Today: ${tokens.toLocaleString()} ${tokens === 1 ? 'token' : 'tokens'}.`,
  failed: 'The query could not be answered.',
  errors: {
    // The server's sentence names the cap's size, which reads oddly at 0 ("all 0 queries").
    member_cap_reached: 'Your team’s admin has set a monthly cap on your queries, and this month’s is used up. Ask them to raise it; it renews at the start of next month.',
  } as Record<string, string>,
  seeDashboard: 'See your usage on the dashboard',
  openGuide: 'Open the full guide',
  functionsTitle: 'Save your prompts as cell functions',
  functionsText:
    'On Professional and Team, a prompt you use often becomes a function the add-on offers in every sheet: =SHEETMIND.TOTAL_BY_REGION(A1:D40) runs it on those cells and writes the answer in the cell. Team admins share functions with the whole team.',
  functionsLink: 'Open Custom functions',
} as const;
