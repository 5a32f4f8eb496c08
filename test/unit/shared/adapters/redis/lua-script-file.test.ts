import { expect } from 'chai';
import { declaredConstants, expandLua, parseLuaHeader, parseScriptFileName } from '../../../../../shared/adapters/redis/lua-script-file';

/** A script file's text: a header with these Input lines, then the body. */
function script(input: string[], body = 'return 1', output = ['1']): string {
  return ['--[[', '  What it does.', '', '  Input:', ...input.map((line) => `    ${line}`), '  Output:', ...output, ']]', body, ''].join(
    '\n',
  );
}

const noIncludes = (name: string): string => {
  throw new Error(`no include ${name}`);
};

describe('parseScriptFileName (a Lua script file is <name>-<number of keys>.lua)', () => {
  it('splits a kebab-case name from its key count, and answers undefined for any other name', () => {
    expect(parseScriptFileName('record-client-grant-4.lua')).to.deep.equal({ name: 'record-client-grant', numberOfKeys: 4 });
    expect(parseScriptFileName('cancel-job-10.lua')).to.deep.equal({ name: 'cancel-job', numberOfKeys: 10 });
    for (const other of ['claim.lua', 'claim-7.ts', 'Claim-7.lua', 'claim-x.lua', '-7.lua'])
      expect(parseScriptFileName(other), other).to.equal(undefined);
  });
});

describe('parseLuaHeader (the Input: and Output: sections of a script header)', () => {
  it('reads each KEYS and ARGV description in order, a continued line belonging to the entry above, and the output', () => {
    const header = parseLuaHeader(
      'a-2.lua',
      script(['KEYS[1] the record', 'KEYS[2] the index', 'ARGV[1] the value,', '  continued', 'ARGV[2] the TTL'], 'return 1', [
        '    1 or 0',
      ]),
    );
    expect(header).to.deep.equal({ keys: ['the record', 'the index'], args: ['the value, continued', 'the TTL'], output: '1 or 0' });
  });

  it('reads an ARGV[i...] entry as any number of further arguments', () => {
    const header = parseLuaHeader('a-1.lua', script(['KEYS[1] the record', 'ARGV[1...] field, value pairs']));
    expect(header.args).to.deep.equal([]);
    expect(header.moreArgs).to.equal('field, value pairs');
  });

  it('refuses a file without a header first, without an Input: or Output: section, or with an empty Output:', () => {
    expect(() => parseLuaHeader('a-1.lua', 'return 1\n')).to.throw(/a-1\.lua: a script opens with its header/);
    expect(() => parseLuaHeader('a-1.lua', '--[[\n  Output:\n  1\n]]\nreturn 1\n')).to.throw(/no Input: section/);
    expect(() => parseLuaHeader('a-1.lua', '--[[\n  Input:\n    KEYS[1] x\n]]\nreturn 1\n')).to.throw(
      /no Input: section followed by an Output:/,
    );
    expect(() => parseLuaHeader('a-1.lua', script(['KEYS[1] x'], 'return 1', []))).to.throw(/Output: section is empty/);
  });

  it('refuses entries out of order, numbered twice, malformed, KEYS[i...], or an entry after ARGV[i...]', () => {
    const refused = [
      ['KEYS[2] the index'],
      ['KEYS[1] a', 'KEYS[1] b'],
      ['KEYS[1] a', 'ARGV[2] b'],
      ['KEYS[1...] keys'],
      ['KEYS[1] a', 'ARGV[1...] pairs', 'ARGV[2] b'],
    ];
    for (const input of refused) expect(() => parseLuaHeader('a-1.lua', script(input)), input.join(' / ')).to.throw(/out of order/);
    expect(() => parseLuaHeader('a-1.lua', script(['KEYS[1]']))).to.throw(/malformed header entry "KEYS\[1\]"/);
    expect(() => parseLuaHeader('a-1.lua', script(['the record', 'KEYS[1] k']))).to.throw(/malformed header entry "the record"/);
  });
});

describe('expandLua (the --- @include and --- @constant directives)', () => {
  it('puts an include in place of its directive and leaves every other line as written', () => {
    const text = script(['KEYS[1] k'], '--- @include "twice"\nreturn twice(1)');
    const expanded = expandLua('a-1.lua', text, (name) => (name === 'twice' ? 'local function twice(n) return 2 * n end\n' : ''));
    expect(expanded).to.equal(text.replace('--- @include "twice"', 'local function twice(n) return 2 * n end'));
  });

  it('turns each constant into a local: a string literal, an integer, a table of strings', () => {
    const text = script(['KEYS[1] k'], '--- @constant FIELD\n--- @constant AT\n--- @constant FIELDS\nreturn 1');
    const expanded = expandLua('a-1.lua', text, noIncludes, { FIELD: 'cxd', AT: 4, FIELDS: ['name', 'data'] });
    expect(expanded).to.contain("\nlocal FIELD = 'cxd'\nlocal AT = 4\nlocal FIELDS = {'name', 'data'}\nreturn 1");
    expect(declaredConstants(text)).to.deep.equal(['FIELD', 'AT', 'FIELDS']);
  });

  it('refuses a constant without a value, a value without its directive, a directive twice, and an unsafe value', () => {
    const text = script(['KEYS[1] k'], '--- @constant FIELD\nreturn 1');
    expect(() => expandLua('a-1.lua', text, noIncludes)).to.throw(/a-1\.lua: no value given for constant FIELD/);
    expect(() => expandLua('a-1.lua', text, noIncludes, { FIELD: 'x', OTHER: 'y' })).to.throw(/does not declare: OTHER/);
    expect(() => expandLua('a-1.lua', `${text}--- @constant FIELD\n`, noIncludes, { FIELD: 'x' })).to.throw(/declared twice/);
    for (const unsafe of ["x'", 'x\\', 'x y', 'x\n'])
      expect(() => expandLua('a-1.lua', text, noIncludes, { FIELD: unsafe })).to.throw(/characters/);
    expect(() => expandLua('a-1.lua', text, noIncludes, { FIELD: 1.5 })).to.throw(/not an integer/);
  });

  it('refuses an unknown directive and an include that has directives of its own', () => {
    expect(() => expandLua('a-1.lua', script(['KEYS[1] k'], '--- @import "x"\nreturn 1'), noIncludes)).to.throw(/unknown directive/);
    const nested = script(['KEYS[1] k'], '--- @include "outer"\nreturn 1');
    expect(() => expandLua('a-1.lua', nested, () => '--- @include "inner"\n')).to.throw(/include "outer" has directives/);
  });
});
