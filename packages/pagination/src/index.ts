export { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, TRUSTED_HOST_HEADER, pageNumberList, parsePageParams, publicRequestUrl, trustedPublicBaseUrl } from './page-number';
export type { PageNumberList, PageParams, RequestLike } from './page-number';
export { CURSOR_PAGE_SIZE_DEFAULT, CURSOR_PAGE_SIZE_MAX, cursorList, decodeCursor, encodeCursor, parseCursorPageSize } from './cursor';
export type { CursorDirection, CursorList, CursorPosition } from './cursor';
export { parseDateTimeQuery } from './date-filter';
