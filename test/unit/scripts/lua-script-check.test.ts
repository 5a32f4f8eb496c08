import { expect } from 'chai';
import { checkLuaScript, checkLuaScripts, keysAndArgsUse, parseLua } from '../../../scripts/lua-script-check';
import { LUA_DIR, listLuaScripts, readLuaScriptFile } from '../../../shared/adapters/redis/lua-script';
import { type LuaScriptsFolder, luaHeader, luaScriptsFolder } from '../../support/lua-scripts-folder';

describe('the Lua scripts of the repository, as the build checks them', () => {
  const names = listLuaScripts();

  it('finds every script of every store folder, 20 or more', () => {
    expect(names.length).to.be.at.least(20);
  });

  for (const name of names) {
    it(`${name}: parses as Lua 5.1, and its header is a list of exactly the KEYS and ARGV its body reads`, () => {
      expect(checkLuaScript(LUA_DIR, name)).to.deep.equal([]);
      const { header, text, numberOfKeys } = readLuaScriptFile(LUA_DIR, name);
      const use = keysAndArgsUse(parseLua(text));
      expect([...use.keys].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: numberOfKeys }, (_, i) => i + 1));
      expect(Math.max(0, ...use.args)).to.equal(header.args.length);
    });
  }

  it('no include is left unused, none reads KEYS or ARGV, and no script reads a global Redis does not give it', () => {
    expect(checkLuaScripts(LUA_DIR)).to.deep.equal([]);
  });
});

describe('checkLuaScripts (what fails the build)', () => {
  let folder: LuaScriptsFolder;
  const write = (file: string, lines: string[]) => folder.write(file, lines);
  const check = () => checkLuaScripts(folder.dir);

  beforeEach(() => {
    folder = luaScriptsFolder();
  });
  afterEach(() => folder.remove());

  it('passes a script whose header names what its body reads, a computed ARGV index under ARGV[i...]', () => {
    write('store/ok-1.lua', [...luaHeader('KEYS[1] k', 'ARGV[1] a'), 'return {KEYS[1], ARGV[1]}']);
    write('store/pairs-1.lua', [
      ...luaHeader('KEYS[1] k', 'ARGV[1...] pairs'),
      'local n = 0',
      'for i = 1, #ARGV do n = n + #ARGV[i] end',
      'return {KEYS[1], n}',
    ]);
    expect(check()).to.deep.equal([]);
  });

  it('reports a named key or argument the body never reads, and one it reads that the header does not name', () => {
    write('store/keys-2.lua', [...luaHeader('KEYS[1] k', 'KEYS[2] unused', 'ARGV[1] a'), 'return {KEYS[1], ARGV[1], ARGV[2]}']);
    expect(check()).to.deep.equal([
      'store/keys-2.lua: the header names KEYS[2], which the script never reads',
      'store/keys-2.lua: the script reads ARGV[2], which the header does not name',
    ]);
  });

  it('reports ARGV read by a computed index without ARGV[i...], ARGV[i...] never read, and KEYS read as a whole', () => {
    write('store/loop-1.lua', [
      ...luaHeader('KEYS[1] k'),
      'local n = 0',
      'for i = 1, #ARGV do n = n + #ARGV[i] end',
      'return {KEYS[1], n}',
    ]);
    write('store/more-1.lua', [...luaHeader('KEYS[1] k', 'ARGV[1...] pairs'), 'return KEYS[1]']);
    write('store/whole-1.lua', [...luaHeader('KEYS[1] k'), 'return {KEYS[1], #KEYS}']);
    expect(check()).to.deep.equal([
      'store/loop-1.lua: the script reads ARGV by a computed index or as a whole, and the header has no ARGV[i...] entry',
      'store/more-1.lua: the header names ARGV[i...], and the script reads no ARGV past its named ones',
      'store/whole-1.lua: the script reads KEYS by a computed index or as a whole: a header names each key',
    ]);
  });

  it('reports a script that does not parse, with its line, and one whose name and header disagree', () => {
    write('store/broken-1.lua', [...luaHeader('KEYS[1] k'), 'if KEYS[1] then', 'return 1']);
    write('store/count-2.lua', [...luaHeader('KEYS[1] k'), 'return KEYS[1]']);
    const problems = check();
    expect(problems).to.have.length(2);
    expect(problems[0]).to.match(/^store\/broken-1\.lua: \[10:0\] 'end' expected/);
    expect(problems[1]).to.equal('store/count-2.lua: the name says 2 keys, the header names 1');
  });

  it('reports a global Redis does not give a script: a misspelt local, or a constant with no directive', () => {
    write('store/typo-1.lua', [...luaHeader('KEYS[1] k'), 'local count = 1', 'return {KEYS[1], cuont, FIELD, count}']);
    expect(check()).to.deep.equal([
      'store/typo-1.lua: reads the global cuont, which Redis does not give a script (a missing local or constant?)',
      'store/typo-1.lua: reads the global FIELD, which Redis does not give a script (a missing local or constant?)',
    ]);
    write('store/typo-1.lua', [...luaHeader('KEYS[1] k'), '--- @constant FIELD', 'return {KEYS[1], FIELD}']);
    expect(check()).to.deep.equal([]);
  });

  it('reports a header that explains: more than two lines of description, or more lines than its entries need', () => {
    const essay = ['--[[', '  One.', '  Two.', '  Three.', '  Input:', '    KEYS[1] k', '  Output:', '    1', ']]'];
    write('store/essay-1.lua', [...essay, 'return KEYS[1]']);
    const answers = Array.from({ length: 5 }, (_, i) => `    answer ${i}`);
    write('store/answers-1.lua', ['--[[', '  Test.', '  Input:', '    KEYS[1] k', '  Output:', ...answers, ']]', 'return KEYS[1]']);
    write('includes/long.lua', [
      '--[[',
      '  f(): one.',
      '  Two.',
      '  Three.',
      '  Output:',
      '    1',
      ']]',
      'local function f() return 1 end',
    ]);
    write('store/uses-1.lua', [...luaHeader('KEYS[1] k'), '--- @include "long"', 'return {f(), KEYS[1]}']);
    expect(check()).to.deep.equal([
      'store/answers-1.lua: the header has 11 lines, at most 10 (9 and one per entry)',
      'store/essay-1.lua: the header says what the script does in 3 lines, at most 2',
      'includes/long.lua: the header says what the script does in 3 lines, at most 2',
    ]);
  });

  it('reports an include that reads KEYS or ARGV, and an include no script includes', () => {
    write('includes/reads-keys.lua', ['--[[', '  f()', ']]', 'local function f() return KEYS[1] end']);
    write('includes/unused.lua', ['--[[', '  g()', ']]', 'local function g() return 1 end']);
    write('store/uses-1.lua', [...luaHeader('KEYS[1] k'), '--- @include "reads-keys"', 'return {f(), KEYS[1]}']);
    expect(check()).to.deep.equal(['includes/reads-keys.lua: an include reads KEYS or ARGV', 'includes/unused.lua: no script includes it']);
  });
});
