/**
 * Child process of `pnpm start`: the embedded, in-memory Redis-compatible server (js-redis-server) for
 * machines without Redis. It reports its port to the parent over IPC and stops on SIGTERM or SIGINT.
 * Local use only: everything is lost when it stops, and it is much slower than Redis.
 */
import net from 'node:net';

// js-redis-server listens on every interface and has no option for the address. An unauthenticated
// Redis must not be reachable from the network, so a listen given only a port binds to loopback.
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(this: net.Server, ...args: unknown[]) {
  if (typeof args[0] === 'number' && (args.length === 1 || typeof args[1] === 'function')) args.splice(1, 0, '127.0.0.1');
  return (listen as (...a: unknown[]) => net.Server).apply(this, args);
} as typeof listen;

interface EmbeddedServer {
  port: number;
  close(): Promise<void>;
}

async function main(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createRedisServer } = require('js-redis-server') as { createRedisServer(options: { port?: number }): Promise<EmbeddedServer> };
  const server = await createRedisServer({ port: Number(process.env.PATCHBAY_EMBEDDED_REDIS_PORT ?? 0) });
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // The parent going away (killed, crashed) ends this server too: nothing is left listening.
  process.once('disconnect', stop);
  process.send?.({ port: server.port });
}

main().catch((err: unknown) => {
  process.send?.({ error: (err as Error).message });
  process.exit(1);
});
