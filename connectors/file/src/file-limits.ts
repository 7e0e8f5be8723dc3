import { open } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl, { type Entry } from 'yauzl';
import { InputError } from '@verify-hub/core';

/**
 * What an uploaded file may hold before it is trusted to a parser. An .xlsx file is a zip archive:
 * 205 KB of it expanded to 200 MB of shared strings, which the workbook reader keeps in memory, so
 * the archive is measured first (entries, the total they expand to, each entry's compression ratio)
 * and every entry is expanded once into nothing to prove its declared size true. A CSV file is not
 * compressed: the upload limit bounds it. In both, a cell is cut at Excel's own limit, and a preview
 * shows at most `previewChars` of it.
 */
export const FILE_LIMITS = {
  /** Entries in an .xlsx archive (a workbook has a few dozen). */
  xlsxEntries: 1000,
  /** What all entries of an .xlsx archive expand to. */
  xlsxExpandedBytes: 100 * 1024 * 1024,
  /** How many times an entry may be larger expanded than compressed (worksheet XML: typically 5-30). */
  xlsxRatio: 100,
  /** Entries expanding to less than this are not held to the ratio (tiny repetitive XML compresses very well). */
  xlsxRatioFloorBytes: 1024 * 1024,
  /** Characters kept of one cell: Excel's own maximum; longer text is cut there. */
  cellChars: 32_767,
  /** Characters of a cell shown in a preview sample. */
  previewChars: 200,
} as const;

/** A file over one of `FILE_LIMITS`: 400 naming `file` and the limit. */
export class FileLimitError extends InputError {
  override readonly code: string = 'FILE_LIMIT';
  constructor(problem: string) {
    super('file', problem);
  }
}

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** Sizes of a data descriptor that may follow an entry's data (with or without its signature; zip64). */
const DESCRIPTOR_SIZES = [0, 12, 16, 20, 24];
const CENTRAL_DIRECTORY_SIGNATURE = 0x02014b50;

/**
 * Measures an .xlsx archive against `FILE_LIMITS` from its central directory, checks that no bytes
 * hide between its entries (a streaming reader would find an entry the directory does not list),
 * then expands each entry into nothing, so a declared size that lies is caught. Throws
 * `FileLimitError`; a file that is not a zip archive is left to the reader to refuse (`undefined`).
 * Returns the names of the archive's parts, in the order they are stored.
 */
export async function checkXlsxArchive(path: string, limits = FILE_LIMITS): Promise<string[] | undefined> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  } catch {
    return undefined;
  }
  try {
    if (zip.entryCount > limits.xlsxEntries) throw new FileLimitError(`the workbook holds ${zip.entryCount} parts, over the limit of ${limits.xlsxEntries}`);
    const entries: Entry[] = [];
    let expanded = 0;
    for await (const entry of zip.eachEntry()) {
      expanded += entry.uncompressedSize;
      if (expanded > limits.xlsxExpandedBytes) throw new FileLimitError(`the workbook expands to more than ${mb(limits.xlsxExpandedBytes)}, the limit: save it as CSV, or split it`);
      const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
      if (entry.uncompressedSize >= limits.xlsxRatioFloorBytes && ratio > limits.xlsxRatio) {
        throw new FileLimitError(`a part of the workbook (${entry.fileName.slice(0, 100)}) expands ${Math.round(ratio)} times, over the limit of ${limits.xlsxRatio}`);
      }
      entries.push(entry);
    }
    await checkNothingHidden(path, zip, entries);
    for (const entry of entries) {
      if (entry.fileName.endsWith('/')) continue;
      try {
        await pipeline(await zip.openReadStreamPromise(entry), new Writable({ write: (_chunk, _encoding, done) => done() }));
      } catch (error) {
        throw new FileLimitError(`a part of the workbook (${entry.fileName.slice(0, 100)}) is not what its archive says: ${(error as Error).message}`);
      }
    }
    return [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader).map((entry) => entry.fileName);
  } finally {
    zip.close();
  }
}

/** Each entry's data ends where the next entry (or the central directory) begins, give or take a data descriptor. */
async function checkNothingHidden(path: string, zip: yauzl.ZipFile, entries: Entry[]): Promise<void> {
  const placed = await Promise.all(entries.map(async (entry) => ({ entry, dataStart: (await zip.readLocalFileHeaderPromise(entry, { minimal: true })).fileDataStart })));
  placed.sort((a, b) => a.entry.relativeOffsetOfLocalHeader - b.entry.relativeOffsetOfLocalHeader);
  if (placed.length && placed[0]!.entry.relativeOffsetOfLocalHeader !== 0) throw new FileLimitError('the workbook has data before its first part');
  const handle = await open(path, 'r');
  try {
    for (let i = 0; i < placed.length; i++) {
      const end = placed[i]!.dataStart + placed[i]!.entry.compressedSize;
      const next = placed[i + 1]?.entry.relativeOffsetOfLocalHeader;
      if (next !== undefined) {
        if (!DESCRIPTOR_SIZES.includes(next - end)) throw new FileLimitError('the workbook has data its archive does not list');
        continue;
      }
      // After the last part: the central directory, at once or after a data descriptor.
      const buffer = Buffer.alloc(4);
      let found = false;
      for (const gap of DESCRIPTOR_SIZES) {
        const { bytesRead } = await handle.read(buffer, 0, 4, end + gap);
        if (bytesRead === 4 && buffer.readUInt32LE(0) === CENTRAL_DIRECTORY_SIGNATURE) found = true;
        if (found) break;
      }
      if (!found) throw new FileLimitError('the workbook has data its archive does not list');
    }
  } finally {
    await handle.close();
  }
}

/** A cell's text cut to `FILE_LIMITS.cellChars`. */
export function capCell<T>(cell: T): T {
  return typeof cell === 'string' && cell.length > FILE_LIMITS.cellChars ? (cell.slice(0, FILE_LIMITS.cellChars) as T) : cell;
}

/** A cell as a preview shows it: at most `FILE_LIMITS.previewChars` characters, an ellipsis where cut. */
export function previewText(text: string): string {
  return text.length > FILE_LIMITS.previewChars ? `${text.slice(0, FILE_LIMITS.previewChars - 1)}…` : text;
}
