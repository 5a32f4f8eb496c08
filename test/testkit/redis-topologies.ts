/**
 * The real Redis topologies tests run on, each started from `redis-server` on free ports of 127.0.0.1 in a
 * private directory, with no persistence and noeviction, and stopped with everything it started: a 6-node
 * Cluster, a Sentinel set, and a TLS-only node with an ACL user.
 */
export { startRedisCluster, parseClusterNodes, type ClusterNodeInfo, type TestRedisCluster } from './redis-cluster';
export { startRedisSentinelSet, type TestRedisSentinelSet } from './redis-sentinel';
export { startTlsRedis, type TestTlsRedis } from './redis-tls';
export { redisCommand, infoFields, type RedisAccess } from './redis-process';
