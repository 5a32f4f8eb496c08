/**
 * The environment a test gives a process it starts, before its own variables: PATH, and the coverage
 * directory when c8 runs the tests (`npm run coverage`), so that the built processes report their coverage
 * too. Nothing else of the test runner's environment leaks into the child.
 */
export function childEnv(env: Record<string, string> = {}): Record<string, string> {
  const coverage = process.env.NODE_V8_COVERAGE;
  return { PATH: process.env.PATH ?? '', ...(coverage ? { NODE_V8_COVERAGE: coverage } : {}), ...env };
}
