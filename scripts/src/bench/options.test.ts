import { UsageError, parseLoadOptions } from './options';

describe('benchmark options', () => {
  it('defaults to 10 s in 5 rounds, 3 s warm-up, 32 connections, 1 wrk thread', () => {
    expect(parseLoadOptions([])).toEqual({
      durationS: 10,
      rounds: 5,
      warmupS: 3,
      connections: 32,
      threads: 1,
      tool: undefined,
      profile: false,
      bareProxy: false,
      help: false,
    });
  });

  it('reads every flag and never uses more wrk threads than connections', () => {
    const options = parseLoadOptions(['--duration', '4', '--rounds', '2', '--warmup', '0', '--connections', '2', '--threads', '4', '--tool', 'autocannon', '--profile', '--bare-proxy']);
    expect(options).toMatchObject({ durationS: 4, rounds: 2, warmupS: 0, connections: 2, threads: 2, tool: 'autocannon', profile: true, bareProxy: true });
  });

  it('rejects unknown flags, fractions and unknown tools with a usage error', () => {
    expect(() => parseLoadOptions(['--nope'])).toThrow(UsageError);
    expect(() => parseLoadOptions(['--duration', '1.5'])).toThrow(UsageError);
    expect(() => parseLoadOptions(['--connections', '0'])).toThrow(UsageError);
    expect(() => parseLoadOptions(['--tool', 'ab'])).toThrow(UsageError);
  });
});
