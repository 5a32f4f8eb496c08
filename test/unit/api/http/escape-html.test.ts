import { expect } from 'chai';
import { escapeHtml } from '../../../../api/http/escape-html';

describe('escapeHtml', () => {
  it('each of & < > " and \' becomes its numeric character reference', () => {
    expect(escapeHtml(`&<>"'`)).to.equal('&#38;&#60;&#62;&#34;&#39;');
  });

  it('a script tag in text comes out inert, every occurrence replaced', () => {
    expect(escapeHtml('<script>a && b</script>')).to.equal('&#60;script&#62;a &#38;&#38; b&#60;/script&#62;');
  });

  it('text without those five characters, accents and an existing reference included, is unchanged', () => {
    expect(escapeHtml('Crème brûlée = 5 € / 2')).to.equal('Crème brûlée = 5 € / 2');
    expect(escapeHtml('')).to.equal('');
  });
});
