/**
 * The real Redis topologies tests run on, each started from `redis-server` on free ports of 127.0.0.1 in a
 * private directory, with no persistence and noeviction, and stopped with everything it started: a 6-node
 * Cluster, a Sentinel set, and a TLS-only node with an ACL user.
 */
export { type ClusterNodeInfo, parseClusterNodes, startRedisCluster, type TestRedisCluster } from './redis-cluster';
export { infoFields, type RedisAccess, redisCommand } from './redis-process';
export { startRedisSentinelSet, type TestRedisSentinelSet } from './redis-sentinel';
export { startTlsRedis, type TestTlsRedis } from './redis-tls';
