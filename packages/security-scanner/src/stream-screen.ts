import type { Scanner } from './scanner';
import type { BlockedBy, Detection, ScanDirection } from './types';

/**
 * Characters held back from a text stream by default: a detection up to this long is seen whole
 * before any of it is released, however the stream splits it. Long enough for the longest common
 * secret formats (OpenAI project keys are about 165 characters), short enough that an answer
 * streams with about 60 tokens of delay.
 */
export const DEFAULT_STREAM_HOLDBACK = 256;

/** What one step of a screened stream releases. */
export interface StreamScreenStep {
  /** Text safe to send now (redactions applied); '' when everything is still held. */
  release: string;
  /** Detections in the released text (each released character is counted once). */
  detections: Detection[];
  /** The first block rule that fired: release nothing more, end the stream with an error. */
  blocked: BlockedBy | null;
}

const NOTHING: StreamScreenStep = { release: '', detections: [], blocked: null };

function totalCount(detections: Detection[]): number {
  let n = 0;
  for (const d of detections) n += d.count;
  return n;
}

/**
 * Screens one text stream (a model's answer arriving as deltas) with a Scanner, as the text flows:
 * it holds back the last `holdBack` characters, so a secret split across deltas is scanned whole
 * before any part of it is released. Text is released only at a cut no detection straddles; a
 * block rule stops the stream. The caller releases `flush()` at the end of the text (or of the
 * block the text belongs to). Not reentrant, like the Scanner.
 */
export class StreamTextScreen {
  private held = '';
  private stopped: BlockedBy | null = null;

  constructor(
    private readonly scanner: Scanner,
    private readonly holdBack = DEFAULT_STREAM_HOLDBACK,
    private readonly direction: ScanDirection = 'outbound',
    /** Past this much held text, release what is scanned even without a clean cut (a pathological answer must not be held whole). */
    private readonly maxHeld = holdBack * 16,
  ) {
    if (!Number.isInteger(holdBack) || holdBack < 1) throw new RangeError(`holdBack must be a positive integer, got ${holdBack}`);
  }

  /** Adds a delta; returns what can be released now. */
  push(delta: string): StreamScreenStep {
    if (this.stopped) return { ...NOTHING, blocked: this.stopped };
    this.held += delta;
    if (this.held.length <= this.holdBack) return NOTHING;
    const full = this.scanner.scan(this.held, this.direction);
    if (full.blocked) return this.stop(full.blocked, full.detections);
    let cut = this.held.length - this.holdBack;
    // Never split a surrogate pair: half an emoji is not text.
    if (isHighSurrogate(this.held.charCodeAt(cut - 1))) cut--;
    if (cut <= 0) return NOTHING;
    if (full.detections.length === 0) {
      // Nothing detected in the whole window: no completed detection straddles the cut.
      const release = this.held.slice(0, cut);
      this.held = this.held.slice(cut);
      return { release, detections: [], blocked: null };
    }
    const head = this.scanner.scan(this.held.slice(0, cut), this.direction);
    const tail = this.scanner.scan(this.held.slice(cut), this.direction);
    const clean = (head.value as string) + (tail.value as string) === full.value && totalCount(head.detections) + totalCount(tail.detections) === totalCount(full.detections);
    if (!clean && this.held.length <= this.maxHeld) return NOTHING;
    if (!clean) {
      // Held too long without a clean cut: release everything, scanned as one text.
      this.held = '';
      return { release: full.value as string, detections: full.detections, blocked: null };
    }
    this.held = this.held.slice(cut);
    return { release: head.value as string, detections: head.detections, blocked: null };
  }

  /** The end of the text: scans and releases everything held. */
  flush(): StreamScreenStep {
    if (this.stopped) return { ...NOTHING, blocked: this.stopped };
    if (this.held === '') return NOTHING;
    const full = this.scanner.scan(this.held, this.direction);
    this.held = '';
    if (full.blocked) return this.stop(full.blocked, full.detections);
    return { release: full.value as string, detections: full.detections, blocked: null };
  }

  /** Characters received and not yet released. */
  get pending(): number {
    return this.held.length;
  }

  private stop(blocked: BlockedBy, detections: Detection[]): StreamScreenStep {
    this.stopped = blocked;
    this.held = '';
    return { release: '', detections, blocked };
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
