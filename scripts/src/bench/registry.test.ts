import { UsageError } from './options';
import { parseRegistryOptions } from './registry';

describe('pnpm bench registry options', () => {
  it('defaults to 30 registrations, 10,000 users with 2 connections each, and the shared load defaults', () => {
    const options = parseRegistryOptions([]);
    expect(options).toMatchObject({ registrations: 30, users: 10_000, connectionsPerUser: 2 });
    expect(options.load).toMatchObject({ durationS: 10, rounds: 5, warmupS: 3, connections: 32 });
  });

  it('takes its own flags in both spellings and passes the rest to the load options', () => {
    const options = parseRegistryOptions(['--registrations', '5', '--users=2000', '--connections-per-user', '0', '--duration', '4', '--warmup', '1']);
    expect(options).toMatchObject({ registrations: 5, users: 2000, connectionsPerUser: 0 });
    expect(options.load).toMatchObject({ durationS: 4, warmupS: 1 });
  });

  it('rejects bad numbers, the flags it has no use for, and unknown flags with a usage error', () => {
    expect(() => parseRegistryOptions(['--users', '0'])).toThrow(UsageError);
    expect(() => parseRegistryOptions(['--registrations'])).toThrow(UsageError);
    expect(() => parseRegistryOptions(['--users', '10.5'])).toThrow(UsageError);
    expect(() => parseRegistryOptions(['--connections-per-user', '11'])).toThrow(UsageError);
    expect(() => parseRegistryOptions(['--profile'])).toThrow(UsageError);
    expect(() => parseRegistryOptions(['--bare-proxy'])).toThrow(UsageError);
    expect(() => parseRegistryOptions(['--nope'])).toThrow(UsageError);
  });
});
