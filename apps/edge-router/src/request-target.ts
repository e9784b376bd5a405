/**
 * Turns the raw request target into the path the edge routes on and forwards.
 *
 * Services behind the edge see the path as we forward it, and their frameworks decode and resolve it
 * in their own ways. So the edge decides on one unambiguous reading first, and refuses every path that
 * could be read two ways: encoded slashes or backslashes, dot segments (plain or encoded), empty
 * segments (`//internal`), double encoding, control characters, malformed escapes. What remains is
 * forwarded in canonical form, so what the service sees is exactly what was matched.
 */

export type RequestTarget =
  | {
      valid: true;
      /** Canonical path: escapes of unreserved characters decoded, other escapes upper-cased. */
      path: string;
      /** Fully decoded segments, for matching. A trailing slash leaves a final empty segment. */
      segments: string[];
      /** The query string as the client sent it, with its leading `?`, or empty. */
      search: string;
    }
  | {
      valid: false;
      /** The path part of what the client sent, for the error message and the log. */
      rawPath: string;
    };

/** RFC 3986 pchar plus `/`: anything else (backslash, `#`, non-ASCII) is refused. */
const ALLOWED_RAW_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
const ESCAPE = /%([0-9A-Fa-f]{2})/g;
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const FORBIDDEN_DECODED = /[/\\%\u0000-\u001f\u007f]/;
const FORBIDDEN_DECODED_BUT_SLASH = /[\\%\u0000-\u001f\u007f]/;

/**
 * The one place an encoded slash is read as part of a segment: the model gateway's model ids contain a
 * slash (`openai/gpt-4o`) and SDKs send them encoded (`/v1/models/openai%2Fgpt-4o`). Only as the last
 * segment after these exact parents, so no other path can be read two ways.
 */
const ENCODED_SLASH_PARENTS = ['v1/models', 'v1/openai/models', 'v1/openai/v1/models'];

function encodedSlashAllowed(rawSegments: string[], index: number): boolean {
  return index === rawSegments.length - 1 && ENCODED_SLASH_PARENTS.includes(rawSegments.slice(0, index).join('/'));
}

export function parseRequestTarget(url: string): RequestTarget {
  const queryStart = url.indexOf('?');
  const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
  const search = queryStart === -1 ? '' : url.slice(queryStart);
  if (!rawPath.startsWith('/') || !ALLOWED_RAW_PATH.test(rawPath)) return { valid: false, rawPath };

  const rawSegments = rawPath.slice(1).split('/');
  const segments: string[] = new Array<string>(rawSegments.length);
  let canonicalChanged = false;
  const canonical: string[] = new Array<string>(rawSegments.length);
  const last = rawSegments.length - 1;
  for (let i = 0; i <= last; i++) {
    const raw = rawSegments[i]!;
    if (raw === '' && i !== last) return { valid: false, rawPath };
    let decoded = raw;
    let canonicalSegment = raw;
    if (raw.includes('%')) {
      const result = decodeSegment(raw);
      if (result === undefined) return { valid: false, rawPath };
      decoded = result.decoded;
      canonicalSegment = result.canonical;
      if (canonicalSegment !== raw) canonicalChanged = true;
    }
    const forbidden = decoded !== raw && encodedSlashAllowed(rawSegments, i) ? FORBIDDEN_DECODED_BUT_SLASH : FORBIDDEN_DECODED;
    const parts = decoded.includes('/') ? decoded.split('/') : null;
    if (decoded === '.' || decoded === '..' || forbidden.test(decoded) || parts?.some((part) => part === '' || part === '.' || part === '..')) return { valid: false, rawPath };
    segments[i] = decoded;
    canonical[i] = canonicalSegment;
  }
  return { valid: true, path: canonicalChanged ? `/${canonical.join('/')}` : rawPath, segments, search };
}

function decodeSegment(raw: string): { decoded: string; canonical: string } | undefined {
  // A `%` not followed by two hex digits is malformed, and decodeURIComponent would reject it too.
  if (raw.replace(ESCAPE, '').includes('%')) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  const canonical = raw.replace(ESCAPE, (_escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
  return { decoded, canonical };
}
