import { expect } from 'chai';
import { loadConfig } from '../../shared/platform/config/config';
import { ConfigError } from '../../shared/platform/config/config-error';
import { BASE_ENV } from './harness';

/** The variables every role requires, with the test connector's values. */
export const REQUIRED_ENV = {
  CONNECTOR_SECRET: BASE_ENV.CONNECTOR_SECRET,
  PUBLIC_URL: BASE_ENV.PUBLIC_URL,
  DASHBOARD_URL: BASE_ENV.DASHBOARD_URL,
  LINK_SECRET: BASE_ENV.LINK_SECRET,
} as const;

/** One variable `loadConfig` refused, and why. */
export type ConfigProblem = ConfigError['problems'][number];

/** The problems `loadConfig` reports for `env` exactly as given (a variable set to undefined is unset); none when it loads. */
export function configProblems(env: Record<string, string | undefined>, role: 'api' | 'worker' = 'api'): readonly ConfigProblem[] {
  try {
    loadConfig(env as NodeJS.ProcessEnv, role);
    return [];
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

/** The names of the variables {@link configProblems} reports, in its order. */
export function configProblemNames(env: Record<string, string | undefined>, role: 'api' | 'worker' = 'api'): string[] {
  return configProblems(env, role).map((problem) => problem.name);
}
