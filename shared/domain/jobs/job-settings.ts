import { cleanEnv, type ValidatorSpec } from 'envalid';
import { ConfigError } from '../../platform/config/config-error';
import { choicesRule, ownReason } from '../../platform/config/settings-table';
import type { PaidJob } from './processor';

/**
 * Reads and validates every paid job's own variables (`PaidJob.settings`), by operation id. Throws a
 * {@link ConfigError} naming each offending variable (never its value), as the connector's own variables do,
 * so a process refuses to start on a bad one.
 */
export function loadJobSettings(env: NodeJS.ProcessEnv, jobs: readonly PaidJob[]): Map<string, Record<string, unknown>> {
  const problems: Array<{ name: string; reason: string }> = [];
  const values = new Map<string, Record<string, unknown>>();
  for (const job of jobs) {
    if (!job.settings) continue;
    const clean = cleanEnv(env, job.settings, {
      reporter: ({ errors }) => {
        for (const [name, error] of Object.entries(errors)) {
          const spec = (job.settings as Record<string, ValidatorSpec<unknown>>)[name];
          problems.push({ name, reason: choicesRule(spec, error) ?? ownReason()(name, error ?? new Error('')) });
        }
      },
    });
    values.set(job.operationId, { ...(clean as Record<string, unknown>) });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return values;
}

/**
 * Every variable the paid jobs declare, with its spec: documented in docs/configuration.md like the others.
 * A variable declared by two jobs is refused: one of them would silently read the other's value.
 */
export function jobSettingVariables(jobs: readonly PaidJob[]): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const job of jobs) {
    for (const [name, spec] of Object.entries(job.settings ?? {})) {
      if (name in variables) throw new Error(`the variable ${name} is declared by two paid jobs`);
      variables[name] = spec;
    }
  }
  return variables;
}
