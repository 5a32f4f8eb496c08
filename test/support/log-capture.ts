import { Writable } from 'node:stream';

/** Collects a logger's JSON lines in memory, so a test can read a whole session's log. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  private partial = '';

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    const text = this.partial + chunk.toString('utf8');
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    this.lines.push(...parts.filter((line) => line.length > 0));
    callback();
  }

  /** Everything logged so far, as one string. */
  text(): string {
    return this.lines.join('\n') + this.partial;
  }
}
