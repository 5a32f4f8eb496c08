import { expect } from 'chai';
import { type FileTime, fileTimesReport } from '../../../support/file-times-report';

describe('fileTimesReport (the whole run’s file times, as .ci/run prints them)', () => {
  const times: FileTime[] = [
    { file: 'test/a.test.ts', worker: 1, start: 0, end: 4_000 },
    { file: 'test/b.test.ts', worker: 2, start: 0, end: 10_000 },
    { file: 'test/c.test.ts', worker: 1, start: 4_000, end: 5_500 },
  ];

  it('with times recorded, lists the files longest first and each worker’s busy time and finish', () => {
    expect(fileTimesReport(times, 2).split('\n')).to.deep.equal([
      '3 files in 10.0 s; the 2 longest:',
      '    10.0 s  test/b.test.ts',
      '     4.0 s  test/a.test.ts',
      '  worker 1: 2 files, busy 5.5 s, done at 5.5 s',
      '  worker 2: 1 file, busy 10.0 s, done at 10.0 s',
    ]);
  });

  it('with nothing recorded (a serial run), says so', () => {
    expect(fileTimesReport([])).to.equal('no file times recorded');
  });
});
