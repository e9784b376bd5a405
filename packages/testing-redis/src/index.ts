export { freePort } from './free-port';
export { PrivateRedis } from './private-redis';
export type { PrivateRedisOptions } from './private-redis';
