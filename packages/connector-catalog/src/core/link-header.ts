/** The `rel="next"` URL of an RFC 8288 Link header (GitHub's pagination), or null. */
export function nextLink(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (match?.[1]) return match[1];
  }
  return null;
}

/** The page number in a next-link URL, so a tool can return it as an opaque cursor. */
export function pageOf(url: string | null): number | null {
  if (!url) return null;
  const page = new URL(url).searchParams.get('page');
  return page ? Number(page) : null;
}
