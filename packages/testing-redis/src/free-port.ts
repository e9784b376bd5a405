import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that the OS has free now (it listens on port 0, reads the port and closes). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Linux's ephemeral range (net.ipv4.ip_local_port_range): outgoing connections take their local ports here. */
export const EPHEMERAL_PORTS = { first: 32768, last: 60999 };

/**
 * Ports below Linux's ephemeral range (32768-60999) that no test of the repo names, for a server a test
 * stops and starts again on the same port: a port the OS picked lies in the ephemeral range, where an
 * outgoing connection of another test may take it while the server is down.
 */
export const RESTARTABLE_PORTS = { first: 16000, last: 16999 };

/** A port of RESTARTABLE_PORTS that is free now, tried at random (parallel test files rarely meet). */
export async function freeRestartablePort(): Promise<number> {
  const span = RESTARTABLE_PORTS.last - RESTARTABLE_PORTS.first + 1;
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = RESTARTABLE_PORTS.first + Math.floor(Math.random() * span);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${RESTARTABLE_PORTS.first}-${RESTARTABLE_PORTS.last} after 50 tries`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
