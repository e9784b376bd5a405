import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** A Lua script sent with EVALSHA, and with EVAL once when the server does not know it yet. */
export interface LuaScript {
  source: string;
  sha1: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

/**
 * One round trip: EVALSHA, and EVAL once when the server answers NOSCRIPT (after a restart or
 * SCRIPT FLUSH the server forgets its scripts; EVAL caches the script again).
 */
export async function runLua(redis: Redis | Cluster, lua: LuaScript, keys: string[], args: Array<string | number>): Promise<unknown> {
  try {
    return await redis.evalsha(lua.sha1, keys.length, ...keys, ...args);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return await redis.eval(lua.source, keys.length, ...keys, ...args);
  }
}
