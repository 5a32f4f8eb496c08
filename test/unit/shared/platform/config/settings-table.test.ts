import { expect } from 'chai';
import { num, str } from 'envalid';
import {
  type ConfigProblem,
  choicesRule,
  ownReason,
  readSettings,
  setting,
  variablesOf,
} from '../../../../../shared/platform/config/settings-table';
import { intInRange } from '../../../../../shared/platform/config/validators';

const TABLE = {
  name: setting('APP_NAME', str({ default: 'connector' })),
  token: setting('APP_TOKEN', str({ default: undefined })),
  http: {
    port: setting('APP_PORT', intInRange(1, 65535)({ default: 8787 })),
    retries: setting('APP_RETRIES', num()),
  },
};

describe('settings tables', () => {
  it('variablesOf: every variable of the table, nested groups included, by its name', () => {
    expect(Object.keys(variablesOf(TABLE)).sort()).to.deep.equal(['APP_NAME', 'APP_PORT', 'APP_RETRIES', 'APP_TOKEN']);
  });

  it('readSettings of valid values: each lands where the table declares it, an unset optional one left out', () => {
    const problems: ConfigProblem[] = [];
    const read = readSettings({ APP_PORT: '9000', APP_RETRIES: '3' }, TABLE, problems);
    expect(read.values).to.deep.equal({ name: 'connector', http: { port: 9000, retries: 3 } });
    expect(problems).to.deep.equal([]);
    expect(read.failed('APP_PORT')).to.equal(false);
  });

  it('readSettings of refused values: one problem each, named, without the value, the field left unset', () => {
    const problems: ConfigProblem[] = [];
    const read = readSettings({ APP_PORT: '70000' }, TABLE, problems);
    expect(problems).to.deep.equal([
      { name: 'APP_PORT', reason: 'must be between 1 and 65535' },
      { name: 'APP_RETRIES', reason: 'is required' },
    ]);
    expect(read.values.http).to.deep.equal({});
    expect([read.failed('APP_PORT'), read.failed('APP_RETRIES'), read.failed('APP_NAME')]).to.deep.equal([true, true, false]);
  });

  it("ownReason: our own 'must'/'is' messages kept, anything else replaced by the fallback (it might echo the value)", () => {
    const reason = ownReason('is not a number');
    expect(reason('X', new Error('must be a whole number'))).to.equal('must be a whole number');
    expect(reason('X', new Error('is too long'))).to.equal('is too long');
    expect(reason('X', new Error('Invalid number input: "s3cret"'))).to.equal('is not a number');
    expect(ownReason()('X', new Error('bad: s3cret'))).to.equal('is invalid');
  });

  it('readSettings with a reason of its own: used for every refused variable', () => {
    const problems: ConfigProblem[] = [];
    readSettings({ APP_RETRIES: 'many' }, TABLE, problems, (variable) => `${variable} refused`);
    expect(problems).to.deep.equal([{ name: 'APP_RETRIES', reason: 'APP_RETRIES refused' }]);
  });

  it('readSettings of a value outside its choices: the problem names the choices, never the value, whatever the reason says', () => {
    const table = { mode: setting('APP_MODE', str({ choices: ['fast', 'safe'] })) };
    const problems: ConfigProblem[] = [];
    readSettings({ APP_MODE: 's3cret' }, table, problems, () => 'is invalid');
    expect(problems).to.deep.equal([{ name: 'APP_MODE', reason: 'must be one of fast, safe' }]);
    const missing: ConfigProblem[] = [];
    readSettings({}, table, missing);
    expect(missing).to.deep.equal([{ name: 'APP_MODE', reason: 'is required' }]);
  });

  it('choicesRule: the choices of a spec that has them; nothing for a spec without, or for a missing variable', () => {
    expect(choicesRule(str({ choices: ['a', 'b'] }), new Error('Value "c" not in choices [a,b]'))).to.equal('must be one of a, b');
    expect(choicesRule(str(), new Error('x'))).to.equal(undefined);
    expect(choicesRule(undefined, new Error('x'))).to.equal(undefined);
  });
});
