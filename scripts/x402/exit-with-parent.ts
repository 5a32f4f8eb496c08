// Loaded first (`--import`) into the connector that `npm run dev:x402` starts, whose IPC channel is its only
// tie to that parent: when the channel closes, the parent is gone, however it went, and the connector stops as
// on SIGTERM. Without it a parent killed outright (SIGKILL, the kernel's out-of-memory killer) leaves the
// connector running. The channel itself keeps nothing alive.
process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
process.channel?.unref();
