export { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, pageNumberList, parsePageParams, publicRequestUrl } from './page-number';
export type { PageNumberList, PageParams, RequestLike } from './page-number';
export { CURSOR_PAGE_SIZE_DEFAULT, CURSOR_PAGE_SIZE_MAX, cursorList, decodeCursor, encodeCursor, parseCursorPageSize } from './cursor';
export type { CursorDirection, CursorList, CursorPosition } from './cursor';
export { parseDateTimeQuery } from './date-filter';
