#!/usr/bin/env node
import { exitCode } from './check-result';
import { parseDoctorArgs } from './options';
import { formatJson, formatText } from './report';
import { runDoctor } from './run-doctor';

// `connector-doctor <URL>`: exit 0 when nothing fails, 1 when a rule fails, 2 on a usage error.
const parsed = parseDoctorArgs(process.argv.slice(2), process.env);
if ('help' in parsed) {
  process.stdout.write(`${parsed.help}\n`);
} else if ('error' in parsed) {
  process.stderr.write(`connector-doctor: ${parsed.error}\n(see connector-doctor --help)\n`);
  process.exitCode = 2;
} else {
  const { options } = parsed;
  runDoctor(options).then(
    (results) => {
      process.stdout.write(options.json ? formatJson(results, options.url, options.publicUrl) : formatText(results, options.url));
      process.exitCode = exitCode(results);
    },
    (error: unknown) => {
      // A bug in the doctor itself, not a finding about the connector.
      process.stderr.write(`connector-doctor: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 2;
    },
  );
}
