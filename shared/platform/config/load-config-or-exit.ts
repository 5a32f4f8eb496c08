import { type Config, loadConfig, type ProcessRole } from './config';
import { ConfigError } from './config-error';

/**
 * Loads the configuration or, when it is invalid, prints every offending variable by name (never its value)
 * and exits non-zero: before any port is opened, so a pod without its Secret crash-loops visibly.
 */
export function loadConfigOrExit(env: NodeJS.ProcessEnv, role: ProcessRole): Config {
  return orExitOnConfigError(role, () => loadConfig(env, role));
}

/**
 * Runs a loader of configuration (the connector's own, or the paid jobs' settings) and, when it throws a
 * {@link ConfigError}, prints the offending variables by name and exits non-zero, as {@link loadConfigOrExit}.
 */
export function orExitOnConfigError<T>(role: ProcessRole, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const lines = error.problems.map((p) => `  - ${p.name} ${p.reason}`);
    process.stderr.write(`connector ${role}: refusing to start, invalid configuration:\n${lines.join('\n')}\n`);
    process.exit(78);
  }
}
