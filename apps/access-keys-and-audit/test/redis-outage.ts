import { connect, createServer, type Server, type Socket } from 'node:net';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Link {
  client: Socket;
  upstream: Socket;
  /** Client bytes kept back, in order, once holding started on this link. */
  held: Buffer[] | null;
}

/**
 * A TCP hop between one Redis client and the server, to make one client lose Redis while others keep
 * it (`cut`/`restore`), or to keep a reconnected client's SUBSCRIBE from reaching Redis until `release`.
 */
export class RedisHop {
  private readonly links = new Set<Link>();
  private down = false;
  private holdSubscribe = false;

  private constructor(
    private readonly server: Server,
    private readonly targetPort: number,
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  static async start(targetPort: number): Promise<RedisHop> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new RedisHop(server, targetPort);
  }

  get url(): string {
    const address = this.server.address();
    return `redis://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  /** Closes every connection and refuses new ones until restore(). */
  cut(): void {
    this.down = true;
    this.dropConnections();
  }

  restore(): void {
    this.down = false;
  }

  dropConnections(): void {
    for (const link of this.links) this.unlink(link);
  }

  /** From now on, a connection's bytes from the first SUBSCRIBE on are kept back until release(). */
  holdSubscriptions(): void {
    this.holdSubscribe = true;
  }

  get holding(): boolean {
    return [...this.links].some((link) => link.held !== null && link.held.length > 0);
  }

  release(): void {
    this.holdSubscribe = false;
    for (const link of this.links) {
      const held = link.held;
      link.held = null;
      for (const chunk of held ?? []) link.upstream.write(chunk);
    }
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.down) {
      client.destroy();
      return;
    }
    const upstream = connect(this.targetPort, '127.0.0.1');
    const link: Link = { client, upstream, held: null };
    this.links.add(link);
    client.on('data', (chunk: Buffer) => {
      if (link.held === null && this.holdSubscribe && /subscribe/i.test(chunk.toString('latin1'))) link.held = [];
      if (link.held !== null) link.held.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    for (const socket of [client, upstream]) {
      socket.on('error', () => this.unlink(link));
      socket.on('close', () => this.unlink(link));
    }
  }

  private unlink(link: Link): void {
    if (!this.links.delete(link)) return;
    link.client.destroy();
    link.upstream.destroy();
  }
}
