import { crc32, deflateSync } from 'node:zlib';

/** One part of a multipart/form-data body as the fakes read it (whole bodies: a fake reads what it was sent). */
export interface FormPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  data: Buffer;
}

/** The parts of a multipart/form-data body, or null when the body is not one (no boundary, no closing delimiter). */
export function parseMultipart(contentType: string | undefined, body: Buffer): FormPart[] | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '');
  const token = boundary?.[1] ?? boundary?.[2];
  if (!token) return null;
  const delimiter = Buffer.from(`--${token}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at === -1) return null;
  for (;;) {
    const afterDelimiter = at + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === '--') return parts;
    const headerStart = afterDelimiter + 2;
    const headerEnd = body.indexOf('\r\n\r\n', headerStart);
    if (headerEnd === -1) return null;
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next === -1) return null;
    const headers = body.subarray(headerStart, headerEnd).toString('utf8');
    const disposition = /content-disposition:[^\r\n]*/i.exec(headers)?.[0] ?? '';
    parts.push({
      name: /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? '',
      filename: /\bfilename="([^"]*)"/i.exec(disposition)?.[1] ?? null,
      contentType: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? null,
      data: body.subarray(headerEnd + 4, next),
    });
    at = next + 2;
  }
}

/** The text fields of a form (last one wins) and its file parts. */
export function formFields(parts: FormPart[]): { fields: Map<string, string>; files: FormPart[] } {
  const fields = new Map<string, string>();
  const files: FormPart[] = [];
  for (const part of parts) {
    if (part.filename !== null) files.push(part);
    else fields.set(part.name, part.data.toString('utf8'));
  }
  return { fields, files };
}

/**
 * A small valid PNG (a solid square whose colour comes from `seed`), what the image fakes return:
 * real image bytes, so a client that decodes them sees a picture.
 */
export function fakePng(seed: number, side = 8): Buffer {
  const colour = [(seed * 67) % 256, (seed * 131) % 256, (seed * 29) % 256];
  const row = Buffer.alloc(1 + side * 3);
  for (let x = 0; x < side; x++) row.set(colour, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: side }, () => row));
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed) >>> 0);
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** Raw 16-bit little-endian mono PCM of a quiet tone, `seconds` long at `rate` Hz (what Gemini TTS returns). */
export function fakePcm(seconds: number, rate = 24_000): Buffer {
  const samples = Math.max(1, Math.round(seconds * rate));
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 1000), i * 2);
  return pcm;
}

/** A WAV file around 16-bit mono PCM. */
export function wavFile(pcm: Buffer, rate = 24_000): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/**
 * How long an uploaded audio file plays, as a transcription API bills it: a WAV's own header when it
 * is one, else the size at 128 kbit/s (a typical MP3).
 */
export function audioSeconds(file: Buffer): number {
  if (file.length >= 44 && file.subarray(0, 4).toString('ascii') === 'RIFF' && file.subarray(8, 12).toString('ascii') === 'WAVE') {
    const byteRate = file.readUInt32LE(28);
    const dataBytes = Math.max(0, file.length - 44);
    if (byteRate > 0) return dataBytes / byteRate;
  }
  return file.length / 16_000;
}
