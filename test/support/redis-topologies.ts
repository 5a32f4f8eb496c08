/**
 * The real Redis topologies tests run on (a 6-node Cluster, a Sentinel set, a TLS-only node with an ACL user).
 * They live in scripts/redis-topologies/, which the build compiles, because the bench starts the same
 * cluster (`npm run bench`); tests import them from here.
 */
export * from '../../scripts/redis-topologies';
