/**
 * The environment a load run (the bench's soak, the rolling restart) gives the built API and worker on one
 * Redis: fixed test secrets named after the run, a per-token rate limit no traffic reaches (the chart's 120 a
 * minute would answer most of it 429, which passes but tests little), and the placeholder job's duration.
 */
export function loadRunEnv(run: string, linkSecret: string, redisUrl: string, jobMs: number): Record<string, string> {
  return {
    CONNECTOR_SECRET: `${run}-connector-secret-0123456789abcdef`,
    PUBLIC_URL: 'http://localhost:8787',
    DASHBOARD_URL: 'https://dashboard.example.com',
    LINK_SECRET: linkSecret,
    REDIS_URL: redisUrl,
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '1000000',
    PLACEHOLDER_JOB_MS: String(jobMs),
  };
}
