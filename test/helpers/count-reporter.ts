import type { Reporter, TestModule } from "vitest/node";

/** Prints the plain `N passed, N failed` line CI reads; a module that failed to load counts as failed. */
export default class CountReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const mod of testModules) {
      let tests = 0;
      for (const test of mod.children.allTests()) {
        tests += 1;
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") {
          failed += 1;
          process.stdout.write(`FAILED: ${mod.moduleId} > ${test.fullName}\n`);
        } else skipped += 1;
      }
      if (mod.state() === "failed" && tests === 0) {
        failed += 1;
        process.stdout.write(`FAILED to load: ${mod.moduleId}\n`);
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
