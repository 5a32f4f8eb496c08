#!/usr/bin/env node
// A stand-in for the few `kubectl` and `helm` commands the runbooks of docs/security.md run, so a test can
// run them as written and look at what they did to the Secret and the release's values. Plain JavaScript:
// it starts once per command, and Node runs it without a compiler.
//
// Usage: fake-cluster.js kubectl|helm <args>. State lives in $FAKE_CLUSTER_DIR: secrets.json
// ({name: {KEY: base64}}), values.json (the release's values), history.jsonl (every change, in order) and
// commands.log (every command). Anything it does not know exits 2, naming the command, so a runbook cannot
// pass by calling something the stand-in ignores.
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.FAKE_CLUSTER_DIR;
const namespace = process.env.FAKE_NAMESPACE ?? 'connector';
const file = (name) => path.join(dir, name);
const load = (name) => JSON.parse(fs.readFileSync(file(name), 'utf8'));
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function fail(message, status = 1) {
  process.stderr.write(`${message}\n`);
  process.exit(status);
}

function save(name, state, tool) {
  fs.writeFileSync(file(name), JSON.stringify(state));
  fs.appendFileSync(file('history.jsonl'), `${JSON.stringify({ tool, state })}\n`);
}

function unsupported(tool, args) {
  fail(`fake ${tool}: unsupported command: ${tool} ${args.join(' ')}`, 2);
}

/** The value of `--flag value` or `--flag=value`. */
function flag(args, name) {
  const index = args.indexOf(name);
  if (index !== -1) return args[index + 1];
  const joined = args.find((arg) => arg.startsWith(`${name}=`));
  return joined?.slice(name.length + 1);
}

function kubectl(args) {
  if (args[0] !== '-n' || args[1] !== namespace) fail(`fake kubectl: expected -n ${namespace} first: ${args.join(' ')}`);
  const [verb, ...rest] = args.slice(2);
  if (verb === 'rollout' && ['restart', 'status'].includes(rest[0]) && rest.length > 1) {
    for (const target of rest.slice(1)) if (!/^deployment\/[a-z0-9-]+$/.test(target)) unsupported('kubectl', args);
    return;
  }
  if (rest[0] !== 'secret') unsupported('kubectl', args);
  const secrets = load('secrets.json');
  const name = rest[1];
  const data = secrets[name];
  if (!data) fail(`Error from server (NotFound): secrets "${name}" not found`);
  const output = flag(rest, '-o');
  if (verb === 'get' && output?.startsWith('jsonpath=')) {
    const key = /^jsonpath=\{\.data\.([A-Za-z0-9_.-]+)\}$/.exec(output)?.[1];
    if (!key) unsupported('kubectl', args);
    process.stdout.write(data[key] ?? '');
    return;
  }
  if (verb !== 'patch') unsupported('kubectl', args);
  const type = flag(rest, '--type');
  if (type === 'merge') {
    const patchFile = flag(rest, '--patch-file');
    const patch = JSON.parse(patchFile ? fs.readFileSync(patchFile, 'utf8') : flag(rest, '-p'));
    for (const [key, value] of Object.entries(patch.data ?? {})) {
      if (value === null) delete data[key];
      else if (typeof value === 'string' && BASE64.test(value) && value !== '') data[key] = value;
      else fail(`The Secret "${name}" is invalid: data[${key}]: illegal base64 data`);
    }
    if (Object.keys(patch).some((key) => key !== 'data')) unsupported('kubectl', args);
  } else if (type === 'json') {
    for (const op of JSON.parse(flag(rest, '-p'))) {
      const key = /^\/data\/([A-Za-z0-9_.-]+)$/.exec(op.path)?.[1];
      if (op.op !== 'remove' || !key) unsupported('kubectl', args);
      if (!(key in data)) fail(`The request is invalid: the server rejected our request: remove of missing ${op.path}`);
      delete data[key];
    }
  } else unsupported('kubectl', args);
  save('secrets.json', secrets, 'kubectl');
}

/** Sets a dotted path of --set-string in a values tree. */
function setPath(values, dotted, value) {
  const parts = dotted.split('.');
  let node = values;
  for (const part of parts.slice(0, -1)) node = node[part] ??= {};
  node[parts.at(-1)] = value;
}

function helm(args) {
  const [verb, sub] = args;
  if (flag(args, '--namespace') !== namespace) fail(`fake helm: expected --namespace ${namespace}: ${args.join(' ')}`);
  if (verb === 'get' && sub === 'values' && flag(args, '-o') === 'json') {
    process.stdout.write(JSON.stringify(load('values.json')));
    return;
  }
  if (verb !== 'upgrade' || !args.includes('--reuse-values')) unsupported('helm', args);
  const values = load('values.json');
  args.forEach((arg, index) => {
    if (arg !== '--set-string') return;
    const entry = args[index + 1];
    const equals = entry.indexOf('=');
    setPath(values, entry.slice(0, equals), entry.slice(equals + 1));
  });
  save('values.json', values, 'helm');
}

const [tool, ...args] = process.argv.slice(2);
fs.appendFileSync(file('commands.log'), `${[tool, ...args].join(' ')}\n`);
if (tool === 'kubectl') kubectl(args);
else if (tool === 'helm') helm(args);
else fail(`fake-cluster: unknown tool ${tool}`, 2);
