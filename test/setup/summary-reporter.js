/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, that CI tooling reads in any
 * language (jest's own summary is not in that form).
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, numFailedTestSuites, numRuntimeErrorTestSuites } = results;
    const brokenSuites = numFailedTestSuites + numRuntimeErrorTestSuites > 0 && numFailedTests === 0 ? 1 : 0;
    process.stdout.write(`\ntests: ${numPassedTests} passed, ${numFailedTests + brokenSuites} failed, ${numPendingTests + numTodoTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
