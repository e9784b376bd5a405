/**
 * Previous/next over a cursor list (`{next, previous, results}`): the API's own cursors are kept as they
 * came, so paging is exactly the API's (keyset, stable while syncs write).
 */
export function CursorPager({ next, previous, onCursor, label = 'Pages' }: { next: string | null; previous: string | null; onCursor: (cursor: string | undefined) => void; label?: string }) {
  return (
    <nav aria-label={label} className="row">
      <button type="button" className="secondary" disabled={previous === null} onClick={() => onCursor(previous ?? undefined)}>
        Previous page
      </button>
      <button type="button" className="secondary" disabled={next === null} onClick={() => onCursor(next ?? undefined)}>
        Next page
      </button>
    </nav>
  );
}
