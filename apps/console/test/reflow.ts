/// <reference lib="dom" />
import type { Locator, Page } from 'playwright-core';

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

/**
 * Whether the tooltip a hover on `button` shows can be seen whole in a window `width` pixels wide: beside its
 * button, inside the window, and on top at each of its corners (not clipped by a box that scrolls, not under the next row). The
 * viewport is put back as it was. An empty list when it can; otherwise what is wrong.
 */
export async function tooltipHiddenAt(page: Page, button: Locator, width = NARROW_WIDTH): Promise<string[]> {
  const before = page.viewportSize() ?? { width: 1400, height: 900 };
  await page.setViewportSize({ width, height: before.height });
  try {
    const tip = page.locator(`[id="${await button.getAttribute('aria-describedby')}"]`);
    await button.scrollIntoViewIfNeeded();
    await button.hover();
    await tip.waitFor({ state: 'visible' });
    const own = await button.boundingBox();
    return await tip.evaluate((el, anchor) => {
      const box = el.getBoundingClientRect();
      const problems: string[] = [];
      // Beside its own button (just below or above it, overlapping it sideways), not by another one on the page.
      if (anchor) {
        const gap = Math.min(Math.abs(box.top - (anchor.y + anchor.height)), Math.abs(anchor.y - box.bottom));
        const overlaps = box.left < anchor.x + anchor.width && box.right > anchor.x;
        if (gap > 12 || !overlaps) problems.push(`the tooltip is not beside its button (${Math.round(box.left)},${Math.round(box.top)}; the button at ${Math.round(anchor.x)},${Math.round(anchor.y)})`);
      }
      if (box.left < 0 || box.top < 0 || box.right > document.documentElement.clientWidth || box.bottom > window.innerHeight) {
        problems.push(`the tooltip runs past the window (${Math.round(box.left)},${Math.round(box.top)} to ${Math.round(box.right)},${Math.round(box.bottom)})`);
      }
      for (const [x, y] of [
        [box.left + 2, box.top + 2],
        [box.right - 2, box.top + 2],
        [box.left + 2, box.bottom - 2],
        [box.right - 2, box.bottom - 2],
      ] as const) {
        const top = document.elementFromPoint(x, y);
        if (!top || !el.contains(top)) problems.push(`at ${Math.round(x)},${Math.round(y)} the window shows ${top ? top.tagName.toLowerCase() : 'nothing'}, not the tooltip`);
      }
      return problems;
    }, own);
  } finally {
    await page.mouse.move(0, 0);
    await page.setViewportSize(before);
  }
}
