// cluster-key-slot ships no types: the two functions it exports, as its README documents them.
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0..16383) of a key, honouring `{hash tags}`. */
  function generate(key: string | Buffer): number;
  namespace generate {
    /** The one slot of several keys, or -1 when they span slots. */
    function generateMulti(keys: Array<string | Buffer>): number;
  }
  export = generate;
}
