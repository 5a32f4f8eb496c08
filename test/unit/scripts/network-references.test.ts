import { expect } from 'chai';
import { networkReferences } from '../../../scripts/network-references';

describe('the network-reference scan of a page', () => {
  it('finds addresses, loading attributes, CSS url() and @import, and embedding elements; allows data: and leaves script code alone', () => {
    const rules = (html: string) => networkReferences(html).map((hit) => hit.rule);
    expect(rules('<script>fetch("https://cdn.example.com/x.js")</script>')).to.deep.equal(['scheme address']);
    expect(rules('<p>//cdn.example.com/lib.js</p>')).to.deep.equal(['protocol-relative address']);
    expect(rules('<img src="x.png">')).to.include.members(['loading attribute', 'embedding element']);
    expect(rules('<style>@import "a.css"; b { background: url(b.png) }</style>')).to.have.members(['CSS @import', 'CSS url()']);
    expect(rules('<link rel="stylesheet" href="a.css">')).to.include.members(['loading attribute', 'embedding element']);
    expect(rules('<style>b { background: url("data:image/png;base64,AAAA") }</style>')).to.deep.equal([]);
    expect(rules('<script>this.data=n;a.src=b</script><p>plain</p>')).to.deep.equal([]);
  });
});
