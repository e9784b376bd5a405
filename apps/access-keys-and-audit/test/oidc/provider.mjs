// A real OpenID provider (oidc-provider, a certified implementation) for sign-in tests, run as its own
// process (it is an ES module): node provider.mjs <port> <client_id> <client_secret> <redirect_uri>...
// Its development login form accepts any login and password; the login is the account's email.
// Prints "ready <issuer>" once listening.
import Provider from 'oidc-provider';

const [port, clientId, clientSecret, ...redirectUris] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
  pkce: { required: () => true },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  cookies: { keys: ['patchbay-test-provider-cookie-key'] },
  features: { devInteractions: { enabled: true } },
  async findAccount(_ctx, id) {
    return {
      accountId: id,
      async claims() {
        const local = id.split('@')[0];
        // A login starting with "unverified-" has an unverified email, to test that it is refused.
        return { sub: id, email: id, email_verified: !local.startsWith('unverified-'), name: `${local} (from the provider)` };
      },
    };
  },
});
provider.proxy = false;
const server = provider.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(`ready ${issuer}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
