import { freePort } from '../testkit/free-port';
import { type Haproxy, startHaproxy } from '../testkit/haproxy';
import { answers, type NodeProcess, setLogDir, startNode } from '../testkit/node-process';
import { waitFor } from '../testkit/wait-for';

/** One API or worker process of the fleet, and when it exited. */
interface Member {
  proc: NodeProcess;
  slot: number;
  metricsPort: number;
  exited: Promise<number | string>;
}

/**
 * Two API replicas behind HAProxy (the rolling-restart bench's, health-checking `/readyz`) and one worker, on
 * one Redis, started from the built tree; {@link roll} replaces each with a new environment as a Deployment's
 * rolling update does: start the new one, wait until it takes traffic, SIGTERM the old one.
 */
export class RotationFleet {
  private readonly apis: Member[] = [];
  private worker: Member | undefined;
  private readonly retired: Member[] = [];
  private generation = 0;

  private constructor(
    readonly haproxy: Haproxy,
    private readonly slotPorts: readonly number[],
    private readonly base: Record<string, string>,
  ) {}

  /** Starts HAProxy, both APIs and the worker with `base` plus `env`; `dir` receives every log. */
  static async start(dir: string, base: Record<string, string>, env: Record<string, string>): Promise<RotationFleet> {
    setLogDir(dir);
    // Two slots per API replica: a replica's new process starts in the slot its predecessor does not use.
    const slotPorts = await Promise.all([0, 1, 2, 3].map(() => freePort()));
    const fleet = new RotationFleet(await startHaproxy(dir, slotPorts), slotPorts, base);
    for (const replica of [0, 1]) fleet.apis.push(await fleet.startMember('api', replica, env));
    for (const api of fleet.apis) await fleet.inRotation(api.slot);
    fleet.worker = await fleet.startMember('worker', 0, env);
    return fleet;
  }

  /** The metrics URLs of the APIs now in rotation. */
  get apiMetricsUrls(): string[] {
    return this.apis.map((api) => `http://127.0.0.1:${api.metricsPort}/metrics`);
  }

  /**
   * Replaces API 0 then API 1 and, alongside (two Deployments roll independently), the worker, each with
   * `base` plus `env`; resolves with the old ones' exit codes (APIs first) once they have exited.
   */
  async roll(env: Record<string, string>): Promise<Array<number | string>> {
    const rollApis = async () => {
      const old: Member[] = [];
      for (const replica of [0, 1]) {
        const slot = (this.apis[replica]!.slot + 2) % 4;
        // The slot's process two generations back must be gone before its port is reused.
        await Promise.all(this.retired.filter((member) => member.slot === slot).map((member) => member.exited));
        const fresh = await this.startMember('api', replica, env, slot);
        await this.inRotation(slot);
        old.push(this.replace(this.apis[replica]!));
        this.apis[replica] = fresh;
      }
      return old;
    };
    const rollWorker = async () => {
      const fresh = await this.startMember('worker', 0, env);
      const old = this.replace(this.worker!);
      this.worker = fresh;
      return [old];
    };
    const old = (await Promise.all([rollApis(), rollWorker()])).flat();
    return Promise.all(old.map((member) => member.exited));
  }

  /** Stops every process still running (SIGTERM, then SIGKILL after 5 s), HAProxy last. */
  async stop(): Promise<void> {
    for (const member of [...this.apis, ...(this.worker ? [this.worker] : []), ...this.retired]) await member.proc.stop();
    await this.haproxy.stop();
  }

  private replace(member: Member): Member {
    member.proc.child.kill('SIGTERM');
    this.retired.push(member);
    return member;
  }

  private async inRotation(slot: number): Promise<void> {
    await waitFor(async () => (await this.haproxy.slotStates())[slot] === 'UP', {
      timeoutMs: 15_000,
      intervalMs: 50,
      what: `HAProxy to send traffic to slot ${slot}`,
    });
  }

  private async startMember(role: 'api' | 'worker', replica: number, env: Record<string, string>, slot = replica): Promise<Member> {
    const metricsPort = await freePort();
    const port = this.slotPorts[slot]!;
    const full = {
      ...this.base,
      ...env,
      METRICS_PORT: String(metricsPort),
      ...(role === 'api' ? { PORT: String(port), TRUST_PROXY: '1' } : {}),
    };
    const probe = `http://127.0.0.1:${role === 'api' ? port : metricsPort}`;
    const name = `${role}-${replica}-${++this.generation}`;
    const proc = await startNode(name, `${role}/main.js`, full, () => answers(`${probe}/healthz`));
    // Ready (Redis connected) can take many seconds on a loaded machine: a deadline of its own, longer than the start's.
    await waitFor(() => answers(`${probe}/readyz`), { timeoutMs: 60_000, intervalMs: 50, what: `${name} to be ready` }).catch(
      async (error: unknown) => {
        await proc.stop();
        throw error;
      },
    );
    const exited = new Promise<number | string>((resolve) => {
      if (proc.child.exitCode !== null) resolve(proc.child.exitCode);
      proc.child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
    });
    return { proc, slot, metricsPort, exited };
  }
}
