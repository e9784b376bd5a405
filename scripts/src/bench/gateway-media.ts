import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { Leg } from './gateway-legs';
import type { RunningService } from './services';

/**
 * The media leg of `pnpm bench gateway` (issue 27 §2): the gateway process's peak resident memory
 * (VmHWM) while 20 MB audio files are uploaded to /v1/audio/transcriptions and forwarded to the fake
 * OpenAI, and while a 30 MB upload is refused with 413 as it streams. The uploads are generated as
 * they are sent, so only the gateway's own memory is in the figures.
 */
const MB = 1024 * 1024;

function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/**
 * Resets the process's high-water mark to its current resident size (Linux 4.0+: "5" into clear_refs),
 * so the peak measured next is the uploads' own, not one the earlier load legs left; false when the
 * kernel or the permissions do not allow it.
 */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

function currentRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** A WAV upload of `bytes` bytes in a multipart body, generated chunk by chunk as it is sent. */
function upload(url: string, headers: Record<string, string>, bytes: number): Promise<{ status: number; ms: number; code: string | null }> {
  const boundary = 'bench-media-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nopenai/whisper-1\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const wav = Buffer.alloc(44);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(bytes - 8, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(16_000, 24);
  wav.writeUInt32LE(32_000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(bytes - 44, 40);
  const chunk = Buffer.alloc(64 * 1024);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + bytes + tail.length) } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        let code: string | null = null;
        try {
          code = (JSON.parse(Buffer.concat(parts).toString('utf8')) as { error?: { code?: string } }).error?.code ?? null;
        } catch {
          code = null;
        }
        resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, code });
      });
    });
    req.on('error', reject);
    let left = bytes - wav.length;
    const pump = () => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!req.write(chunk.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      req.end(tail);
    };
    req.write(head);
    req.write(wav);
    pump();
  });
}

export async function mediaUploadLeg(gateway: RunningService, direct: Leg): Promise<string[]> {
  const url = `${gateway.baseUrl}/v1/audio/transcriptions`;
  const headers = { Authorization: direct.headers.Authorization ?? direct.headers.authorization ?? '' };
  const mb = (n: number) => (n / MB).toFixed(1);
  const warm = await upload(url, headers, MB);
  if (warm.status !== 200) return [`  skipped: a 1 MB transcription upload answered ${warm.status} ${warm.code ?? ''}`];
  const reset = resetPeak(gateway.pid);
  const start = peakRss(gateway.pid);
  const startRss = currentRss(gateway.pid);
  const first = await upload(url, headers, 20 * MB);
  const afterFirst = peakRss(gateway.pid);
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) runs.push((await upload(url, headers, 20 * MB)).ms);
  const concurrent = await Promise.all([upload(url, headers, 20 * MB), upload(url, headers, 20 * MB)]);
  const afterMore = peakRss(gateway.pid);
  const refused = await upload(url, headers, 30 * MB);
  const afterRefused = peakRss(gateway.pid);
  const statuses = [first, ...concurrent].map((r) => r.status);
  return [
    `  gateway direct, POST /v1/audio/transcriptions (openai/whisper-1 on the fake OpenAI), uploads generated as they are sent; gateway process peak RSS (VmHWM):`,
    `  before: ${mb(start)} MB peak, ${mb(startRss)} MB resident${reset ? ' (peak reset to the resident size first)' : ' (the peak could not be reset: it may be one the earlier legs left, hiding the uploads)'}`,
    `  one 20 MB upload: ${first.status}, ${first.ms.toFixed(0)} ms; peak +${mb(afterFirst - start)} MB (socket and file buffers not yet collected; the file itself goes to disk)`,
    `  three more 20 MB uploads in turn (${runs.map((ms) => ms.toFixed(0)).join(', ')} ms) and two at once (${concurrent.map((r) => r.status).join(', ')}): peak +${mb(afterMore - afterFirst)} MB more`,
    `  a 30 MB upload: ${refused.status} ${refused.code ?? ''} after ${refused.ms.toFixed(0)} ms, refused while streaming: peak +${mb(afterRefused - afterMore)} MB more`,
    ...(statuses.every((s) => s === 200) && refused.status === 413 ? [] : [`  UNEXPECTED: statuses ${statuses.join(', ')}, refused ${refused.status}`]),
  ];
}
