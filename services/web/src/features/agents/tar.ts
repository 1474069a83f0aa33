/**
 * A minimal ustar writer: enough for the agent's tarball (regular files and folders, short
 * names). Every header field that could vary between builds (owner, times) is fixed, so the same
 * files always make the same bytes and the published SHA-256 stays stable.
 */

export interface TarEntry {
  /** A path inside the archive, `/`-separated; a folder ends with `/`. */
  name: string;
  /** The file's bytes; absent for a folder. */
  data?: Buffer;
  mode: number;
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  // width - 1 digits and a NUL, as ustar readers expect.
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function header(entry: TarEntry): Buffer {
  const name = Buffer.from(entry.name, 'utf8');
  if (name.length > 100) throw new Error(`tar: name longer than 100 bytes: ${entry.name}`);
  const block = Buffer.alloc(BLOCK);
  const isFolder = entry.data === undefined;
  name.copy(block, 0);
  block.write(octal(entry.mode, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii'); // uid
  block.write(octal(0, 8), 116, 'ascii'); // gid
  block.write(octal(entry.data?.length ?? 0, 12), 124, 'ascii');
  block.write(octal(0, 12), 136, 'ascii'); // mtime: the epoch, for identical bytes every build
  block.write(' '.repeat(8), 148, 'ascii'); // the checksum counts its own field as spaces
  block.write(isFolder ? '5' : '0', 156, 'ascii');
  block.write('ustar\0' + '00', 257, 'ascii');
  block.write('root', 265, 'ascii');
  block.write('root', 297, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return block;
}

/** The archive's bytes (uncompressed), entries in the order given. */
export function tarball(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(header(entry));
    if (entry.data) {
      parts.push(entry.data);
      const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
      if (pad) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2)); // two empty blocks end the archive
  return Buffer.concat(parts);
}
