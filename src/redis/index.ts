/**
 * `mcpkit/redis`: several instances of one server sharing their state through Redis (needs the
 * `ioredis` peer). `redisScaleOut` wires all of it; each store can also be used alone.
 *
 * @module mcpkit/redis
 */
export { redisScaleOut } from './redis.scale-out';
export type { RedisScaleOutOptions } from './redis.scale-out';
export { RedisTaskStore } from './redis.task-store';
export type { RedisTaskStoreOptions } from './redis.task-store';
export type { RedisConnection } from './redis-connection';
export { RedisPolicyStore } from './redis.policy-store';
export type { RedisPolicyStoreOptions } from './redis.policy-store';
export { RedisEventStore } from './redis.event-store';
export type { RedisEventStoreOptions } from './redis.event-store';
export { RedisSessionBackplane } from './redis.session-backplane';
export type { RedisSessionBackplaneOptions } from './redis.session-backplane';
export { RedisDpopStore } from './redis.dpop-store';
export type { RedisDpopStoreOptions } from './redis.dpop-store';
export { RedisOAuthProxyStore } from './redis.oauth-proxy-store';
export type { RedisOAuthProxyStoreOptions } from './redis.oauth-proxy-store';
