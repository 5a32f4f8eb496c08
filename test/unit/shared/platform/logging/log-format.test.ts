import { expect } from 'chai';
import { devLogFormat } from '../../../../../shared/platform/logging/log-format';

describe('npm run dev log format (devLogFormat)', () => {
  it('is pretty when stdout is a terminal and JSON when it is not (a pipe, a file, a harness)', () => {
    expect(devLogFormat(true, undefined)).to.equal('pretty');
    expect(devLogFormat(false, undefined)).to.equal('json');
    expect(devLogFormat(undefined, undefined), 'a stream without isTTY is not a terminal').to.equal('json');
  });

  it('follows LOG_FORMAT=json or LOG_FORMAT=pretty whatever stdout is', () => {
    expect(devLogFormat(true, 'json')).to.equal('json');
    expect(devLogFormat(false, 'pretty')).to.equal('pretty');
  });

  it('ignores any other LOG_FORMAT value and falls back to the terminal test', () => {
    for (const value of ['', 'PRETTY', 'text', 'yes']) {
      expect(devLogFormat(false, value), value).to.equal('json');
      expect(devLogFormat(true, value), value).to.equal('pretty');
    }
  });
});
