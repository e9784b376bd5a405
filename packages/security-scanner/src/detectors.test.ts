import { randomBytes } from 'node:crypto';
import { Scanner } from './scanner';
import type { DetectorKind, SecurityRule } from './types';

function redactor(kind: DetectorKind): (text: string) => string {
  const rule: SecurityRule = { id: `rule-${kind}`, name: kind, detector: kind, direction: 'both', action: 'redact', enabled: true };
  const scanner = new Scanner([rule]);
  return (text) => scanner.scan(text, 'outbound').value as string;
}

const base64url = (bytes: number) => randomBytes(bytes).toString('base64url');
const jwtPart = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('EMAIL_ADDRESS', () => {
  const redact = redactor('EMAIL_ADDRESS');

  it.each([
    ['write to alice@example.com today', 'write to [REDACTED:EMAIL_ADDRESS] today'],
    ['first.last+billing@mail.example.co.uk', '[REDACTED:EMAIL_ADDRESS]'],
    ['mailto:bob_99@example.org.', 'mailto:[REDACTED:EMAIL_ADDRESS].'],
    ['{"to":"carol@example.io","cc":["dave@example.io"]}', '{"to":"[REDACTED:EMAIL_ADDRESS]","cc":["[REDACTED:EMAIL_ADDRESS]"]}'],
    ['<erin@example.com>, frank@example.com', '<[REDACTED:EMAIL_ADDRESS]>, [REDACTED:EMAIL_ADDRESS]'],
  ])('finds the address in %j', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it.each([
    'icon@2x.png',
    'mention @octocat in the issue',
    'root@localhost',
    'lodash@4.17.21',
    'a@b.c',
    '550e8400-e29b-41d4-a716-446655440000',
  ])('leaves %j alone', (text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('PHONE_NUMBER', () => {
  const redact = redactor('PHONE_NUMBER');

  it.each([
    '+1 (415) 555-0134',
    '+14155550134',
    '+44 20 7946 0958',
    '+33 1 23 45 67 89',
    '(415) 555-0134',
    '415-555-0134',
    '415.555.0134',
    '1-415-555-0134',
    '020 7946 0958',
    '01 23 45 67 89',
    '030-1234-5678',
  ])('finds %j', (phone) => {
    expect(redact(`call ${phone} now`)).toBe('call [REDACTED:PHONE_NUMBER] now');
  });

  it.each([
    ['a timestamp', '2024-05-02T10:31:00Z'],
    ['a unix timestamp', 'created 1714645860'],
    ['an order id', 'order 123456789012'],
    ['an order id with a prefix', 'ORD-2024-000123456'],
    ['a UUID', '550e8400-e29b-41d4-a716-446655440000'],
    ['a version number', 'v2.14.1 and 10.0.19041.1'],
    ['a date', '01.02.2024 10:30'],
    ['an IP address', '192.168.100.200'],
    ['a short international number', '+12 345 678'],
    ['a plain long number (documented trade-off: unformatted numbers are not phones)', '4155550134'],
    ['a timezone offset', '2024-05-02T10:31:00+0200'],
  ])('leaves %s alone', (_what, text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('CREDIT_CARD', () => {
  const redact = redactor('CREDIT_CARD');

  it.each([
    ['Visa', '4111111111111111'],
    ['Visa with spaces', '4111 1111 1111 1111'],
    ['Visa with dashes', '4111-1111-1111-1111'],
    ['Mastercard', '5555555555554444'],
    ['Mastercard 2-series', '2223003122003222'],
    ['American Express', '378282246310005'],
    ['American Express in its 4-6-5 grouping', '3782 822463 10005'],
    ['Discover', '6011111111111117'],
    ['JCB', '3530111333300000'],
    ['Diners Club', '30569309025904'],
  ])('finds a %s number', (_brand, card) => {
    expect(redact(`card ${card}, thanks`)).toBe('card [REDACTED:CREDIT_CARD], thanks');
  });

  it('finds the card among the numbers written after it', () => {
    expect(redact('4111 1111 1111 1111 12 26 123')).toBe('[REDACTED:CREDIT_CARD] 12 26 123');
    expect(redact('4111111111111111 4012888888881881')).toBe('[REDACTED:CREDIT_CARD] [REDACTED:CREDIT_CARD]');
  });

  it.each([
    ['a Luhn-invalid number', '4111111111111112'],
    ['a Luhn-valid number outside the card networks', '1234567812345670'],
    ['a millisecond timestamp', '1714645860000'],
    ['an order id', 'order 123456789012'],
    ['a number glued to letters', 'tok4111111111111111x'],
    ['a number too long to be a card', '41111111111111111111111'],
    ['a UUID', '550e8400-e29b-41d4-a716-446655440000'],
  ])('leaves %s alone', (_what, text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('US_SSN', () => {
  const redact = redactor('US_SSN');

  it.each(['123-45-6789', '123 45 6789', '078-05-1120'])('finds %j', (ssn) => {
    expect(redact(`ssn: ${ssn}.`)).toBe('ssn: [REDACTED:US_SSN].');
  });

  it.each([
    ['area 000', '000-12-3456'],
    ['area 666', '666-12-3456'],
    ['area 9xx', '912-12-3456'],
    ['group 00', '123-00-4567'],
    ['serial 0000', '123-45-0000'],
    ['mixed separators', '123-45 6789'],
    ['nine bare digits', '123456789'],
    ['a phone number', '415-555-0134'],
    ['a date', '2024-05-02'],
    ['a UUID fragment', 'a716-446655440000'],
  ])('leaves %s alone', (_what, text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('IBAN', () => {
  const redact = redactor('IBAN');

  it.each([
    'DE89370400440532013000',
    'DE89 3704 0044 0532 0130 00',
    'GB82WEST12345698765432',
    'GB82 WEST 1234 5698 7654 32',
    'FR1420041010050500013M02606',
    'NL91ABNA0417164300',
    'BE68539007547034',
    'CH9300762011623852957',
    'NO9386011117947',
  ])('finds %j', (iban) => {
    expect(redact(`pay to ${iban} EUR`)).toBe('pay to [REDACTED:IBAN] EUR');
  });

  it.each([
    ['a wrong checksum', 'DE89370400440532013001'],
    ['a country not in the table', 'XX89370400440532013000'],
    ['one character short', 'DE8937040044053201300'],
    ['glued to more characters', 'DE89370400440532013000X'],
    ['an uppercase order reference', 'ORDER12ABCDEFGHIJKLMNOP'],
  ])('leaves an IBAN with %s alone', (_what, text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('IP_ADDRESS', () => {
  const redact = redactor('IP_ADDRESS');

  it.each([
    '192.168.1.10',
    '8.8.8.8',
    '255.255.255.255',
    '2001:0db8:85a3:0000:0000:8a2e:0370:7334',
    '2001:db8::8a2e:370:7334',
    'fe80::1ff:fe23:4567:890a',
    '::ffff:192.0.2.128',
  ])('finds %j', (ip) => {
    expect(redact(`from ${ip}.`)).toBe('from [REDACTED:IP_ADDRESS].');
  });

  it('keeps the port and the prefix length outside the marker', () => {
    expect(redact('10.0.0.1:8080 and 10.0.0.0/8')).toBe('[REDACTED:IP_ADDRESS]:8080 and [REDACTED:IP_ADDRESS]/8');
  });

  it.each([
    ['an octet over 255', '999.1.1.1'],
    ['an octet of 256', '256.1.1.1'],
    ['a three-part version', 'v2.14.1'],
    ['a five-part version', '1.2.3.4.5'],
    ['leading zeros', '01.02.03.04'],
    ['a time', '10:30:00'],
    ['a MAC address', '00:1A:2B:3C:4D:5E'],
    ['C++ scope', 'std::vector<int>'],
    ['loopback shorthand', '::1'],
    ['a UUID', '550e8400-e29b-41d4-a716-446655440000'],
    ['a timestamp', '2024-05-02T10:31:00Z'],
  ])('leaves %s alone', (_what, text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('SECRET', () => {
  const redact = redactor('SECRET');
  const pem = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgwMbRvI0MBZhpI', 'Proc-Type: 4,ENCRYPTED', 'DEK-Info: AES-128-CBC,5E8F7C', 'c2VjcmV0IGtleSBtYXRlcmlhbA==', '-----END RSA PRIVATE KEY-----'].join('\n');

  it.each([
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['an AWS temporary key id', 'ASIAY34FZKBOKMUTVV7A'],
    ['a GitHub classic token', `ghp_${'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5'}`],
    ['a GitHub OAuth token', `gho_${'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa99'}`],
    ['a GitHub fine-grained token', `github_pat_11ABCDEFG0${'a1B2c3D4e5'.repeat(8)}`],
    ['a Slack bot token', 'xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'],
    ['a Stripe live secret key', `sk_live_${'4eC39HqLyjWDarjtT1zdp7dc'}`],
    ['a Stripe restricted key', `rk_live_${'51H8sKxLkA0b1C2d3E4f5G6h'}`],
    ['an OpenAI key', `sk-${'T3BlbkFJ'}${'a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ12'}`],
    ['an OpenAI project key', `sk-proj-${base64url(90)}`],
    ['an Anthropic key', `sk-ant-api03-${base64url(70)}`],
    ['a Google API key', `AIza${'SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY'}`],
    ['a Patchbay live key', `pb_live_${base64url(32)}`],
    ['a Patchbay test key', `pb_test_${base64url(32)}`],
    ['a JWT', `${jwtPart({ alg: 'HS256', typ: 'JWT' })}.${jwtPart({ sub: '1234567890', name: 'Alice' })}.${base64url(32)}`],
  ])('finds %s', (_what, secret) => {
    expect(redact(`token=${secret} end`)).toBe('token=[REDACTED:SECRET] end');
  });

  it('replaces the whole PEM private key block', () => {
    expect(redact(`key:\n${pem}\nthanks`)).toBe('key:\n[REDACTED:SECRET]\nthanks');
  });

  it('replaces a PEM block inside JSON text, where newlines are escaped', () => {
    const text = JSON.stringify({ private_key: `${pem}\n`, client_email: 'svc@project.iam.example.com' });
    expect(redact(text)).toBe('{"private_key":"[REDACTED:SECRET]\\n","client_email":"svc@project.iam.example.com"}');
  });

  it('replaces a PEM block cut off before its END line', () => {
    expect(redact('-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nabc')).toBe('[REDACTED:SECRET]');
  });

  it.each([
    ['a branch name that starts like an OpenAI key', 'sk-my-feature-branch-name-for-the-q3-release'],
    ['a JWT-shaped string whose header is not JSON', `${Buffer.from('{"not": json').toString('base64url')}.eyJzdWIiOiIxIn0.c2ln`],
    ['a JWT-shaped string whose header names no algorithm', `${jwtPart({ sub: 'x' })}.${jwtPart({ sub: 'y' })}.c2ln`],
    ['a word ending in a key prefix', `mask-${'a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ12'}`],
    ['a UUID', '550e8400-e29b-41d4-a716-446655440000'],
    ['a public key', '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END PUBLIC KEY-----'],
    ['a Stripe publishable key', `pk_live_${'4eC39HqLyjWDarjtT1zdp7dc'}`],
  ])('leaves %s alone', (_what, text) => {
    expect(redact(text)).toBe(text);
  });
});
