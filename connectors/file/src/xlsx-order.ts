import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import yazl from 'yazl';

/** The parts a worksheet's cells depend on: relationships, sheet names, shared strings, styles (dates). */
export const SHEET_DEPENDENCIES = ['xl/_rels/workbook.xml.rels', 'xl/workbook.xml', 'xl/sharedStrings.xml', 'xl/styles.xml'] as const;

const WORKSHEET = /^xl\/worksheets\/sheet\d+\.xml$/;

/**
 * The workbook re-packed, as a zip stream, with the parts its worksheets depend on first, then the
 * worksheets in their order (nothing else: the reader ignores the rest).
 *
 * Why: exceljs 4.4's streaming reader parses a worksheet at once only if the shared strings and the
 * relationships came before it; otherwise it parks the sheet in a temporary file until the end of the
 * zip, and that path is racy. With the order exceljs's own writer and Excel use (sheets before shared
 * strings), reads of one small file went wrong in about 7 % of tries on a loaded machine: text cells as
 * `{ sharedString: n }` (addresses read as "[object Object]"), dates as serial numbers, a TypeError
 * ("reading 'model'"), or a read that never ended. In this order every read takes the direct path.
 * The parts come out of the archive checkXlsxArchive measured; each is inflated and deflated again at
 * level 1 as it streams (no part is held whole).
 */
export async function dependenciesFirst(path: string): Promise<{ stream: Readable; close: () => void }> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  const entries = new Map<string, yauzl.Entry>();
  for await (const entry of zip.eachEntry()) entries.set(entry.fileName, entry);
  const names = [...SHEET_DEPENDENCIES.filter((name) => entries.has(name)), ...[...entries.keys()].filter((name) => WORKSHEET.test(name))];
  const out = new yazl.ZipFile();
  for (const name of names) {
    out.addReadStreamLazy(name, { compressionLevel: 1 }, (done) => {
      zip.openReadStream(entries.get(name)!, done);
    });
  }
  out.end();
  return { stream: out.outputStream as Readable, close: () => zip.close() };
}
