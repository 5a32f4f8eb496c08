/**
 * Loaded into every mocha process (`.mocharc.json`). Under c8 (`npm run coverage` sets NODE_V8_COVERAGE) a
 * process writes its coverage while it exits, which takes seconds for a mocha worker that has loaded the
 * whole product; the worker pool sends SIGTERM one second after asking a worker to exit, and its default
 * action would end the worker before the file is written. Handled, the signal still ends the process, after
 * the write.
 */
if (process.env.NODE_V8_COVERAGE) process.on('SIGTERM', () => process.exit(143));
