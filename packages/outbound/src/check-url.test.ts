import { BlockedDestinationError } from './blocked-destination-error';
import { checkUrl, resolvePublicHost, type HostLookup } from './check-url';

const closed = { allowPrivateNetwork: false };
const open = { allowPrivateNetwork: true };

/** A resolver with fixed answers, so no test depends on the network. */
function fakeDns(records: Record<string, string[]>): HostLookup {
  return async (hostname) => {
    const addresses = records[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const dns = fakeDns({
  'api.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'mixed.example.com': ['93.184.215.14', '10.0.0.7'],
  'internal.example.com': ['10.1.2.3'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
});

async function blocked(promise: Promise<unknown>): Promise<BlockedDestinationError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(BlockedDestinationError);
    return err as BlockedDestinationError;
  }
  throw new Error('expected a BlockedDestinationError');
}

describe('checkUrl', () => {
  it('accepts a public https URL and returns every address it resolves to', async () => {
    const checked = await checkUrl('https://api.example.com/v1/items?x=1', closed, { lookup: dns });
    expect(checked.url.href).toBe('https://api.example.com/v1/items?x=1');
    expect(checked.addresses).toEqual(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
  });

  it('accepts URL objects and public IP literals without a lookup', async () => {
    const checked = await checkUrl(new URL('https://8.8.8.8/dns'), closed, { lookup: fakeDns({}) });
    expect(checked.addresses).toEqual(['8.8.8.8']);
  });

  it('refuses a host name that resolves to a loopback address (localhost, from the system resolver)', async () => {
    const err = await blocked(checkUrl('https://localhost/admin', closed));
    expect(err.reason).toBe('private_address');
    expect(err.host).toBe('localhost');
    expect(err.message).toContain('PATCHBAY_ALLOW_PRIVATE_NETWORK=true');
    expect(err.message).not.toContain('127.0.0.1');
  });

  it('refuses a host when any one of its addresses is private', async () => {
    expect((await blocked(checkUrl('https://mixed.example.com/', closed, { lookup: dns }))).reason).toBe('private_address');
    expect((await blocked(checkUrl('https://internal.example.com/', closed, { lookup: dns }))).reason).toBe('private_address');
    expect((await blocked(checkUrl('https://metadata.example.com/latest/meta-data', closed, { lookup: dns }))).reason).toBe('private_address');
    expect((await blocked(checkUrl('https://mapped.example.com/', closed, { lookup: dns }))).reason).toBe('private_address');
  });

  it('refuses private IP literals in every spelling the URL parser accepts', async () => {
    for (const url of ['https://127.0.0.1/', 'https://[::1]/', 'https://[::ffff:127.0.0.1]/', 'https://2130706433/', 'https://0x7f.1/', 'https://169.254.169.254/', 'https://0/']) {
      const err = await blocked(checkUrl(url, closed, { lookup: fakeDns({}) }));
      expect(err.reason).toBe('private_address');
    }
  });

  it('refuses http:// unless the policy allows private networks or https is not required', async () => {
    const err = await blocked(checkUrl('http://api.example.com/', closed, { lookup: dns }));
    expect(err.reason).toBe('scheme');
    expect(err.message).toContain('Only https:// URLs');
    await expect(checkUrl('http://api.example.com/', open, { lookup: dns })).resolves.toMatchObject({ addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
    await expect(checkUrl('http://api.example.com/', closed, { lookup: dns, requireHttps: false })).resolves.toBeDefined();
  });

  it('refuses other schemes even when private networks are allowed', async () => {
    for (const url of ['ftp://api.example.com/file', 'file:///etc/passwd', 'gopher://api.example.com/', 'javascript:alert(1)', 'data:text/plain,hi']) {
      expect((await blocked(checkUrl(url, open, { lookup: dns }))).reason).toBe('scheme');
    }
  });

  it('refuses credentials in the URL', async () => {
    const err = await blocked(checkUrl('https://user:pw@api.example.com/', closed, { lookup: dns }));
    expect(err.reason).toBe('credentials_in_url');
    expect(err.message).not.toContain('pw');
    expect((await blocked(checkUrl('https://user@api.example.com/', open, { lookup: dns }))).reason).toBe('credentials_in_url');
  });

  it('refuses a host that does not resolve, and text that is not a URL', async () => {
    const err = await blocked(checkUrl('https://nowhere.example.com/', closed, { lookup: dns }));
    expect(err.reason).toBe('unresolvable');
    expect(err.host).toBe('nowhere.example.com');
    expect((await blocked(checkUrl('not a url', closed, { lookup: dns }))).reason).toBe('invalid_url');
    expect((await blocked(checkUrl('/relative/path', closed, { lookup: dns }))).reason).toBe('invalid_url');
  });

  it('lets private addresses through when PATCHBAY_ALLOW_PRIVATE_NETWORK is on', async () => {
    await expect(checkUrl('https://localhost:8443/', open)).resolves.toMatchObject({ addresses: expect.arrayContaining(['127.0.0.1']) });
    await expect(checkUrl('http://10.1.2.3:5432/', open)).resolves.toMatchObject({ addresses: ['10.1.2.3'] });
  });
});

describe('resolvePublicHost', () => {
  it('returns the addresses of a public host', async () => {
    await expect(resolvePublicHost('api.example.com', closed, { lookup: dns })).resolves.toEqual(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
    await expect(resolvePublicHost('[2606:4700:4700::1111]', closed)).resolves.toEqual(['2606:4700:4700::1111']);
  });

  it('refuses private, loopback and unresolvable hosts of a connection string', async () => {
    expect((await blocked(resolvePublicHost('localhost', closed))).reason).toBe('private_address');
    expect((await blocked(resolvePublicHost('127.0.0.1', closed))).reason).toBe('private_address');
    expect((await blocked(resolvePublicHost('fd00::5', closed))).reason).toBe('private_address');
    expect((await blocked(resolvePublicHost('internal.example.com', closed, { lookup: dns }))).reason).toBe('private_address');
    expect((await blocked(resolvePublicHost('nowhere.example.com', closed, { lookup: dns }))).reason).toBe('unresolvable');
    expect((await blocked(resolvePublicHost('', closed))).reason).toBe('invalid_url');
  });

  it('allows a private database host with PATCHBAY_ALLOW_PRIVATE_NETWORK on', async () => {
    await expect(resolvePublicHost('127.0.0.1', open)).resolves.toEqual(['127.0.0.1']);
  });
});
