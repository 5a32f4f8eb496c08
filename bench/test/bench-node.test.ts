import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { describeNode, imageNodeExecutable, imageNodeVersion, requestedNode } from '../bench-node';
import { quantityMiB } from '../memory-cgroup';

describe('the Node a bench runs on (bench/bench-node.ts)', () => {
  it("is the image's by default, with BENCH_NODE=image too", () => {
    expect(requestedNode({}, [])).to.deep.equal({ origin: 'image' });
    expect(requestedNode({ BENCH_NODE: 'image' }, ['dist'])).to.deep.equal({ origin: 'image' });
  });

  it("is the machine's when --machine-node or BENCH_NODE=machine asks for it", () => {
    expect(requestedNode({}, ['a', '--machine-node'])).to.deep.equal({ origin: 'machine' });
    expect(requestedNode({ BENCH_NODE: 'machine' }, [])).to.deep.equal({ origin: 'machine' });
  });

  it('is the executable BENCH_NODE names when it names a path', () => {
    expect(requestedNode({ BENCH_NODE: '/opt/node/bin/node' }, [])).to.deep.equal({ origin: 'path', path: '/opt/node/bin/node' });
  });

  it('reads the pinned version from the Dockerfile and keeps it in .tools/node-<version>', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'bench-node-test-'));
    try {
      writeFileSync(path.join(root, 'Dockerfile'), 'ARG BASE=x\nARG NODE_VERSION=26.12.1\nFROM node:${NODE_VERSION}\n');
      expect(imageNodeVersion(root)).to.equal('26.12.1');
      expect(imageNodeExecutable('26.12.1', root)).to.equal(path.join(root, '.tools', 'node-26.12.1', 'node_modules', '.bin', 'node'));
      writeFileSync(path.join(root, 'Dockerfile'), 'ARG NODE_VERSION=26\n');
      expect(() => imageNodeVersion(root)).to.throw(/not a full Node version/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('names where the Node of a figure came from', () => {
    expect(describeNode('v26.12.1', 'image')).to.equal("Node v26.12.1 (the image's, Dockerfile NODE_VERSION)");
    expect(describeNode('v20.20.2', 'machine')).to.equal("Node v20.20.2 (the machine's)");
    expect(describeNode('v20.20.2', undefined)).to.equal('Node v20.20.2 (started directly)');
  });
});

describe('memory quantities of the chart (bench/memory-cgroup.ts)', () => {
  it('reads Mi, Gi and decimal units as MiB and refuses anything else', () => {
    expect(quantityMiB('320Mi')).to.equal(320);
    expect(quantityMiB('1Gi')).to.equal(1024);
    expect(quantityMiB('1048576')).to.equal(1);
    expect(() => quantityMiB('lots')).to.throw(/not a memory quantity/);
  });
});
