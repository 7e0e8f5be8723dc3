/**
 * Polls `check` until it holds; the one wait of the test suites. Bounds are generous: tests wait for
 * conditions (a queue drained, a process ready), never for a fixed time.
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'a condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
