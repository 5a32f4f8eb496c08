// Loaded first (`--import`) into the connector that `npm run dev:x402` starts, whose IPC channel is its only
// tie to that parent: when the channel closes, the parent is gone, however it went, and the connector stops as
// on SIGTERM. Without it a parent killed outright leaves the connector running: tsx's command line SIGKILLs a
// child that has not acknowledged a relayed signal within a few tens of milliseconds, which a loaded machine
// misses. The channel itself keeps nothing alive.
process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
process.channel?.unref();
