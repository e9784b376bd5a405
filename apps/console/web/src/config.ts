/**
 * This installation's paths, written into index.html by the console's server (never built in): the
 * console's own base path and the prefix of the public APIs, for a reverse proxy on a sub-path.
 */
function meta(name: string, fallback: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content || fallback;
}

export const consoleBasePath = meta('patchbay-console-base', '/console/');
export const apiBasePath = meta('patchbay-api-base', '/');
