import { crc32, deflateRawSync } from 'node:zlib';

/**
 * A tiny zip writer for tests that need zips a real archiver will not write: headers that lie
 * about an entry's size (a zip bomb) as well as honest ones. Layout per PKWARE's APPNOTE.TXT
 * (4.3.7 local file header, 4.3.12 central directory header, 4.3.16 end of central directory);
 * no zip64, no data descriptors, timestamps 1980-01-01 00:00 as sentry-cli's bundles have
 * (/tmp/scli/PROTOCOL.md §2). No zip library is a dependency of the repo (archiver/zip-stream only
 * come in transitively), and none of them writes a lying header anyway.
 */
export interface ZipEntry {
  name: string;
  data: Buffer;
  /** Stored (method 0) instead of deflated (method 8). */
  store?: boolean;
  /**
   * The uncompressed size written into both headers instead of `data.length`: a lie when it
   * differs. The CRC stays that of the real data (yauzl does not check CRCs; sizes are the lie).
   */
  declaredSize?: number;
}

const DOS_DATE_1980_01_01 = (0 << 9) | (1 << 5) | 1;

export function writeZip(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const body = entry.store ? entry.data : deflateRawSync(entry.data);
    const method = entry.store ? 0 : 8;
    const crc = crc32(entry.data);
    const size = entry.declaredSize ?? entry.data.length;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // flags: UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(DOS_DATE_1980_01_01, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28); // extra length
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    central.writeUInt16LE(20, 6); // version needed
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(DOS_DATE_1980_01_01, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    // extra, comment, disk number, internal and external attributes: all 0.
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
