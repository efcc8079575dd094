/** A 1x1 red PNG. */
export const RED_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A minimal WAV file: 44-byte header, 8 kHz mono 8-bit, 4 samples of silence. */
export const SILENT_WAV = Buffer.concat([
  Buffer.from('RIFF'),
  u32(40),
  Buffer.from('WAVEfmt '),
  u32(16),
  u16(1),
  u16(1),
  u32(8000),
  u32(8000),
  u16(1),
  u16(8),
  Buffer.from('data'),
  u32(4),
  Buffer.from([128, 128, 128, 128]),
]).toString('base64');

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}
function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}
