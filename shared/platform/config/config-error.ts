/** Invalid or missing configuration; lists variable names and reasons, never values. */
export class ConfigError extends Error {
  readonly problems: ReadonlyArray<{ name: string; reason: string }>;

  constructor(problems: ReadonlyArray<{ name: string; reason: string }>) {
    super(`invalid configuration: ${problems.map((p) => `${p.name} ${p.reason}`).join('; ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
