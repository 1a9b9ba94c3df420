// Ends every jest run with the plain line CI reads: "N passed, N failed". Under tests/run.ts, which
// runs two jest side by side, the counts go to the file it names instead, and it prints their sum.
const fs = require('node:fs');

class CountReporter {
  onRunComplete(_contexts, results) {
    const counts = { passed: results.numPassedTests, failed: results.numFailedTests + results.numRuntimeErrorTestSuites };
    if (process.env.TEST_COUNTS_FILE) fs.writeFileSync(process.env.TEST_COUNTS_FILE, JSON.stringify(counts));
    else process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed\n`);
  }
}
module.exports = CountReporter;
