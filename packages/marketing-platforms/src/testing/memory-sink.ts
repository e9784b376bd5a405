import type { Checkpoint, FetchedContact, FetchedEvent, SyncPage, SyncSink } from '../types';

/**
 * The app's sink as the tests need it: upserts by remote id like the real one, and counts every
 * write per record (contacts per event link), so a test sees a record written twice.
 */
export class MemorySink implements SyncSink {
  readonly events = new Map<string, FetchedEvent>();
  readonly contacts = new Map<string, FetchedContact>();
  /** `eventId|contactId` of every link written. */
  readonly links = new Set<string>();
  readonly eventWrites = new Map<string, number>();
  /** Writes per link: a contact belongs to each event it was written for. */
  readonly linkWrites = new Map<string, number>();
  readonly pages: SyncPage[] = [];
  /** Throws on the write with this index (0-based), as a process killed mid-commit: nothing of that page is kept. */
  failAt: number | null = null;
  private writes = 0;

  async writePage(page: SyncPage): Promise<void> {
    const index = this.writes;
    this.writes += 1;
    if (this.failAt === index) throw new Error(`killed at page ${index}`);
    // A page and its checkpoint are one transaction, as in the app; the checkpoint goes through JSON as it would into a jsonb column.
    this.apply({ ...page, checkpoint: JSON.parse(JSON.stringify(page.checkpoint)) as unknown });
  }

  /** Stores a page as a committed one (also used to replay the pages before a resume point). */
  apply(page: SyncPage): void {
    this.pages.push(page);
    for (const e of page.events) {
      this.events.set(e.remoteId, e);
      this.eventWrites.set(e.remoteId, (this.eventWrites.get(e.remoteId) ?? 0) + 1);
    }
    for (const c of page.contacts) this.contacts.set(c.remoteId, c);
    for (const l of page.links) {
      const key = `${l.eventRemoteId}|${l.contactRemoteId}`;
      this.links.add(key);
      this.linkWrites.set(key, (this.linkWrites.get(key) ?? 0) + 1);
    }
  }

  get lastCheckpoint(): Checkpoint | null {
    return this.pages.length > 0 ? this.pages[this.pages.length - 1]!.checkpoint : null;
  }

  /** Records written more than once (events by id, contacts by link). */
  duplicates(): string[] {
    return [...[...this.eventWrites].filter(([, n]) => n > 1).map(([id]) => `event ${id}`), ...[...this.linkWrites].filter(([, n]) => n > 1).map(([id]) => `link ${id}`)];
  }
}
