import Redis from 'ioredis';
import {
  REGISTRY_CHANGES_CHANNEL,
  parseRegistryChange,
  publishRegistryChange,
  subscribeRegistryChanges,
  type CloseRegistryChangeSubscription,
  type RegistryChange,
} from '../src/channels';
import { TEST_REDIS_URL, memoryLogger, waitFor } from './harness';

const ORG = '2b0c3a3e-7d35-4f4e-9d7a-4a2f0e7c1b11';

describe('parseRegistryChange', () => {
  it('reads a change with its narrowing fields and drops fields it does not know', () => {
    const raw = JSON.stringify({ organization_id: ORG, environment: 'test', kind: 'credentials', connector_slug: 'github', registered_user_id: 'u1', secret: 'nope', tool_pack_id: null });
    expect(parseRegistryChange(raw)).toEqual({ organization_id: ORG, environment: 'test', kind: 'credentials', connector_slug: 'github', registered_user_id: 'u1' });
  });

  it.each([
    ['not JSON', '{"organization_id":'],
    ['an array', '[]'],
    ['a string', '"tool_packs"'],
    ['no organization', JSON.stringify({ environment: 'production', kind: 'tool_packs' })],
    ['an empty organization', JSON.stringify({ organization_id: '', environment: 'production', kind: 'tool_packs' })],
    ['an unknown environment', JSON.stringify({ organization_id: ORG, environment: 'staging', kind: 'tool_packs' })],
    ['an unknown kind', JSON.stringify({ organization_id: ORG, environment: 'production', kind: 'everything' })],
    ['a narrowing field that is not a string', JSON.stringify({ organization_id: ORG, environment: 'production', kind: 'tool_packs', tool_pack_id: 42 })],
  ])('returns null for %s', (_what, raw) => {
    expect(parseRegistryChange(raw)).toBeNull();
  });
});

describe('registry change channel over Redis', () => {
  const connections: Redis[] = [];
  const closers: CloseRegistryChangeSubscription[] = [];
  const connect = (): Redis => {
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 2 });
    connections.push(redis);
    return redis;
  };
  // Changes of this test run only, so parallel test files on the same Redis do not interfere.
  const org = `${ORG}-${process.pid}`;

  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
    for (const redis of connections.splice(0)) redis.disconnect();
  });

  it('delivers a published change to every subscriber and leaves out fields that are not part of the contract', async () => {
    const publisher = connect();
    const received: RegistryChange[][] = [[], []];
    for (const inbox of received) {
      closers.push(await subscribeRegistryChanges(connect(), (change) => { if (change.organization_id === org) inbox.push(change); }));
    }
    const withExtra = { organization_id: org, environment: 'production', kind: 'tool_packs', tool_pack_id: 'p1', client_secret: 's3cret' } as RegistryChange;
    expect(await publishRegistryChange(publisher, withExtra)).toBeGreaterThanOrEqual(2);
    await waitFor(() => received.every((inbox) => inbox.length === 1), 'both subscribers to receive the change');
    for (const inbox of received) expect(inbox[0]).toEqual({ organization_id: org, environment: 'production', kind: 'tool_packs', tool_pack_id: 'p1' });
  });

  it('ignores malformed messages, reports them, and keeps delivering the next good one', async () => {
    const publisher = connect();
    const logger = memoryLogger();
    const received: RegistryChange[] = [];
    closers.push(await subscribeRegistryChanges(connect(), (change) => { if (change.organization_id === org) received.push(change); }, { logger }));
    await publisher.publish(REGISTRY_CHANGES_CHANNEL, 'not json');
    await publisher.publish(REGISTRY_CHANGES_CHANNEL, JSON.stringify({ organization_id: org, environment: 'production', kind: 'unknown' }));
    await publishRegistryChange(publisher, { organization_id: org, environment: 'test', kind: 'registered_users', registered_user_id: 'u1' });
    await waitFor(() => received.length === 1, 'the well-formed change');
    expect(received).toEqual([{ organization_id: org, environment: 'test', kind: 'registered_users', registered_user_id: 'u1' }]);
    expect(logger.lines.filter((l) => l.message === 'ignored a malformed registry change message')).toHaveLength(2);
  });

  it('reports the subscription down when its connection drops and live again, after resubscribing, when it is back', async () => {
    const publisher = connect();
    const subscriber = connect();
    const events: string[] = [];
    const received: RegistryChange[] = [];
    closers.push(
      await subscribeRegistryChanges(subscriber, (change) => { if (change.organization_id === org) received.push(change); }, {
        onLive: () => events.push('live'),
        onDown: () => events.push('down'),
      }),
    );
    expect(events).toEqual(['live']);

    subscriber.disconnect();
    await waitFor(() => events.length === 2, 'the subscription to go down');
    expect(events).toEqual(['live', 'down']);
    // Published while down: lost, which is why a cache starts over when the subscription is live again.
    await publishRegistryChange(publisher, { organization_id: org, environment: 'production', kind: 'connectors' });

    await subscriber.connect();
    await waitFor(() => events.length === 3, 'the subscription to be live again');
    expect(events).toEqual(['live', 'down', 'live']);
    await publishRegistryChange(publisher, { organization_id: org, environment: 'production', kind: 'credentials', connector_slug: 'slack' });
    await waitFor(() => received.length === 1, 'the change published after the reconnect');
    expect(received[0]).toMatchObject({ kind: 'credentials', connector_slug: 'slack' });
  });

  it('stops delivering once closed', async () => {
    const publisher = connect();
    const subscriber = connect();
    const received: RegistryChange[] = [];
    const close = await subscribeRegistryChanges(subscriber, (change) => { if (change.organization_id === org) received.push(change); });
    await close();
    // A second subscriber on its own connection shows the message did go out.
    const other: RegistryChange[] = [];
    closers.push(await subscribeRegistryChanges(connect(), (change) => { if (change.organization_id === org) other.push(change); }));
    await publishRegistryChange(publisher, { organization_id: org, environment: 'production', kind: 'tool_packs' });
    await waitFor(() => other.length === 1, 'the other subscriber to receive the change');
    expect(received).toEqual([]);
    expect(subscriber.listenerCount('message')).toBe(0);
  });
});
