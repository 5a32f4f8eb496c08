// One implementation, shared with the Redis topology starters (scripts/redis-topologies/), which the build
// compiles for the bench and so cannot import from test/.
export { freePort } from '../../scripts/redis-topologies/free-port';
