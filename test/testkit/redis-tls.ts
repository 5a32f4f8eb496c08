import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataNodeLines, launchRedis, onFreePorts, type RedisAccess } from './redis-process';
import { makeCertificates, tlsLines } from './test-certificates';

/** A private TLS-only Redis node with an ACL user, as managed services offer. */
export interface TestTlsRedis {
  readonly port: number;
  /** `rediss://user:password@127.0.0.1:port` (what `REDIS_URL` takes). */
  readonly url: string;
  readonly username: string;
  readonly password: string;
  /** PEM file of the CA that signed the node's certificate (`REDIS_TLS_CA_FILE`). */
  readonly caFile: string;
  /** PEM file of a CA that signed nothing here. */
  readonly otherCaFile: string;
  readonly access: RedisAccess;
  /** Kills the node and removes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts one `redis-server` with only a TLS port (`port 0`), certificates made for the run by `openssl` (a
 * private CA, a server certificate for 127.0.0.1 and localhost), the default user switched off and one ACL
 * user with a random password.
 */
export async function startTlsRedis({ username = 'connector' } = {}): Promise<TestTlsRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'connector-test-tls-'));
  const password = randomBytes(16).toString('hex');
  try {
    const certs = makeCertificates(dir);
    const access: RedisAccess = { username, password, ca: certs.ca };
    const node = await onFreePorts(1, ([port]) =>
      launchRedis({ port, dir: path.join(dir, `node-${port}`), access, tls: true, lines: [...dataNodeLines(access), ...tlsLines(certs)] }),
    );
    const { port } = node;
    return {
      port,
      url: `rediss://${encodeURIComponent(username)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
      username,
      password,
      caFile: certs.caFile,
      otherCaFile: certs.otherCaFile,
      access,
      stop: async () => {
        await node.kill();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
