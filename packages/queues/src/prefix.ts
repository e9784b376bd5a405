import { Cluster } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';

/**
 * The BullMQ prefix of one queue. On one Redis server it is the installation's prefix as given
 * (`bull`), so existing queues keep their keys. On a Redis Cluster every key a BullMQ script touches
 * must share a hash slot, so the queue's name becomes the hash tag: `bull:{audit-events}`. Each queue
 * then lives on one shard and different queues spread over the shards (nothing here moves jobs
 * between queues: no flows). A prefix that carries its own hash tag is kept as is.
 */
export function queuePrefix(prefix: string | undefined, queue: string, connection: ConnectionOptions): string {
  const given = prefix ?? 'bull';
  if (!(connection instanceof Cluster) || /\{[^}]+\}/.test(given)) return given;
  return `${given}:{${queue}}`;
}
