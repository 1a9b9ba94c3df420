// Ends every jest run with the plain line CI reads: "N passed, N failed", after the name of each
// failed test (a CI log may keep only its last part, where jest's own report of it is long gone).
// Under tests/run.ts, which runs two jest side by side, the counts and names go to the file it
// names instead, and it prints their sum.
const fs = require('node:fs');
const path = require('node:path');
const { stripVTControlCharacters } = require('node:util');

/** The first lines of why a test failed, without colours or the stack, indented under its name. */
function why(messages) {
  const lines = stripVTControlCharacters(messages.join('\n'))
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*at /.test(line));
  const shown = lines.slice(0, 12).map((line) => `    ${line.slice(0, 300)}`);
  return lines.length > shown.length ? [...shown, `    … (${lines.length - shown.length} more lines in jest’s report above)`] : shown;
}

/**
 * "tests/e2e/auth.test.ts › sign-in › keeps the session", one for each failed test or file, each
 * followed by the first lines of why: a CI log that keeps only its last part still says what went wrong.
 */
function failures(results) {
  return results.testResults.flatMap((file) => {
    const where = path.relative(process.cwd(), file.testFilePath);
    const tests = file.testResults
      .filter((test) => test.status === 'failed')
      .map((test) => [[where, ...test.ancestorTitles, test.title].join(' › '), ...why(test.failureMessages)].join('\n'));
    return file.testExecError ? [`${where} › (the file did not run: ${file.testExecError.message.split('\n')[0]})`, ...tests] : tests;
  });
}

class CountReporter {
  onRunComplete(_contexts, results) {
    const counts = {
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      failures: failures(results),
    };
    if (process.env.TEST_COUNTS_FILE) fs.writeFileSync(process.env.TEST_COUNTS_FILE, JSON.stringify(counts));
    else process.stdout.write(`\n${counts.failures.map((name) => `failed: ${name}\n`).join('')}${counts.passed} passed, ${counts.failed} failed\n`);
  }
}
module.exports = CountReporter;
