import { decodedMappings, FlattenMap } from '@jridgewell/trace-mapping';

/**
 * A parsed source map kept small (issue 41, bench/RESULTS.md): trace-mapping parses the map (plain
 * and indexed maps, sourceRoot, source URLs) and decodes its mappings, then each generated line's
 * segments are packed into one Int32Array, and the TraceMap with its array-per-segment form is
 * dropped. That form takes about ten times the map's JSON once looked up (4.5 MB for a 0.47 MB
 * map); the packed one about as much as the JSON, so the symbolicator's cache can count real
 * bytes. `lookup` answers exactly as trace-mapping's originalPositionFor with its default bias
 * (test/compact-map.test.ts holds it to that on every position of real bundles).
 */

/** Fields per packed segment: generated column, source, original line, original column, name. */
const FIELDS = 5;
const NONE = -1;

export interface OriginalPosition {
  source: string;
  /** 1-based. */
  line: number;
  /** 0-based. */
  column: number;
  name: string | null;
}

export class CompactMap {
  private readonly lines: Int32Array[];
  private readonly sources: (string | null)[];
  private readonly names: string[];
  private readonly contents: (string | null)[];
  private readonly split = new Map<number, string[]>();
  /** About what this map holds in memory: what the cache counts. */
  readonly bytes: number;

  constructor(json: string) {
    // FlattenMap reads indexed (sectioned) maps too, as one TraceMap.
    const map = new FlattenMap(json);
    this.sources = map.resolvedSources;
    this.names = map.names;
    this.contents = map.sources.map((_, index) => map.sourcesContent?.[index] ?? null);
    this.lines = decodedMappings(map).map((segments) => {
      const packed = new Int32Array(segments.length * FIELDS);
      segments.forEach((segment, at) => {
        const base = at * FIELDS;
        packed[base] = segment[0];
        packed[base + 1] = segment.length > 1 ? segment[1]! : NONE;
        packed[base + 2] = segment.length > 1 ? segment[2]! : NONE;
        packed[base + 3] = segment.length > 1 ? segment[3]! : NONE;
        packed[base + 4] = segment.length === 5 ? segment[4] : NONE;
      });
      return packed;
    });
    const text = (list: readonly (string | null)[]) =>
      list.reduce((sum, item) => sum + (item?.length ?? 0), 0);
    this.bytes =
      this.lines.reduce((sum, line) => sum + line.byteLength + 64, 0) +
      2 * (text(this.contents) + text(this.sources) + text(this.names));
  }

  /**
   * The original position of a generated one (line 1-based, column 0-based): the segment at that
   * column, else the nearest one before it on the line; none when the line has no segment there
   * or the segment names no source.
   */
  lookup(line: number, column: number): OriginalPosition | null {
    const segments = this.lines[line - 1];
    if (!segments || segments.length === 0) return null;
    // The last segment whose generated column is <= column.
    let low = 0;
    let high = segments.length / FIELDS - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (segments[middle * FIELDS]! <= column) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    if (found < 0) return null;
    // An exact match takes the first of the segments at that column, as trace-mapping does.
    if (segments[found * FIELDS] === column) {
      while (found > 0 && segments[(found - 1) * FIELDS] === column) found -= 1;
    }
    const base = found * FIELDS;
    const source = segments[base + 1]!;
    if (source === NONE) return null;
    const name = segments[base + 4]!;
    return {
      source: this.sources[source] ?? '',
      line: segments[base + 2]! + 1,
      column: segments[base + 3]!,
      name: name === NONE ? null : (this.names[name] ?? null),
    };
  }

  /** A source's lines from sourcesContent, split the first time they are asked for. */
  sourceLines(source: string): string[] | undefined {
    const index = this.sources.indexOf(source);
    if (index < 0) return undefined;
    const cached = this.split.get(index);
    if (cached) return cached;
    const content = this.contents[index];
    if (typeof content !== 'string') return undefined;
    const lines = content.split(/\r\n|\r|\n/);
    this.split.set(index, lines);
    return lines;
  }
}
