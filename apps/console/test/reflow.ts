/// <reference lib="dom" />
import type { Page } from 'playwright-core';

/** The narrow window every console page must fit: a phone held sideways, or a browser beside an editor. */
export const NARROW_WIDTH = 640;

/**
 * What sticks out past the right edge of the window when the page is shown `width` pixels wide, as
 * `tag.class "text"` lines: each element that runs past both the window and its parent (the one that
 * makes the page wider, not the ancestors it drags along); empty when nothing does. A wide
 * table or a long value may scroll inside its own box (`.scroll`, `.table-scroll`): only the page itself must not
 * scroll sideways. The viewport is put back as it was.
 */
export async function overflowAt(page: Page, width = NARROW_WIDTH): Promise<string[]> {
  const before = page.viewportSize() ?? { width: 1400, height: 900 };
  await page.setViewportSize({ width, height: before.height });
  try {
    return await page.evaluate(() => {
      const edge = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth <= edge) return [];
      const insideScroller = (el: Element): boolean => {
        for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) if (getComputedStyle(up).overflowX !== 'visible') return true;
        return false;
      };
      const found: string[] = [];
      for (const el of Array.from(document.body.querySelectorAll('*'))) {
        const right = el.getBoundingClientRect().right;
        const parentRight = el.parentElement?.getBoundingClientRect().right ?? edge;
        if (right <= edge + 0.5 || right <= parentRight + 0.5 || insideScroller(el)) continue;
        const name = `${el.tagName.toLowerCase()}${el.classList.length ? `.${Array.from(el.classList).join('.')}` : ''}`;
        found.push(`${name} "${(el.textContent ?? '').trim().slice(0, 40)}"`);
      }
      return found.length ? found : [`the page is ${document.documentElement.scrollWidth}px wide`];
    });
  } finally {
    await page.setViewportSize(before);
  }
}
