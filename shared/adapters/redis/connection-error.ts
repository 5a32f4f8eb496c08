/** Messages of connection failures, which the Redis client's own listener already counts and logs (once per outage). */
const CONNECTION_ERROR = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|Connection is closed|Stream isn't writeable|max retries per request/i;

/** True for an error a BullMQ queue or worker reports because Redis is unreachable: not worth a log line of its own. */
export function isConnectionError(error: Pick<Error, 'message'>): boolean {
  return CONNECTION_ERROR.test(error.message);
}
