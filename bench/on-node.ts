import { spawn } from 'node:child_process';
import { benchNode, describeNode, MACHINE_NODE_FLAG } from './bench-node';

// `node dist/bench/on-node.js <script> [args]`: runs a bench script on the Node it is to measure, the image's
// (the Dockerfile's NODE_VERSION, fetched into .tools/ on first use) unless `--machine-node` or
// `BENCH_NODE=machine` asks for the machine's, or BENCH_NODE names a `node` executable. The script, autocannon
// in it and every process it starts (they are started with `process.execPath`) then run on that one Node, so
// both trees of a comparison do too.
const [script, ...args] = process.argv.slice(2);
if (!script) {
  process.stderr.write('usage: on-node <script> [args]\n');
  process.exit(2);
}
const node = benchNode(process.env, args);
process.stdout.write(`bench on ${describeNode(node.version, node.origin)}: ${node.executable}\n`);
const child = spawn(node.executable, [script, ...args.filter((arg) => arg !== MACHINE_NODE_FLAG)], {
  stdio: 'inherit',
  env: { ...process.env, BENCH_NODE_ORIGIN: node.origin },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
