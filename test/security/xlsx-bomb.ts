import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { crc32, createDeflateRaw } from 'node:zlib';

/**
 * Writes an .xlsx zip bomb as issue 37's attacker made it: a valid workbook (one sheet, an email
 * column) whose shared-strings part holds one cell of `expandedBytes` (default 200 MB) of text,
 * deflated to about 200 KB. Streamed in 1 MB pieces: the test process never holds it whole.
 * Also builds the same workbook with honest sizes (`bombText` small) for a control.
 */
const CHUNK = 1024 * 1024;

interface Part {
  name: string;
  /** The part's text, given as pieces (so 200 MB can be produced lazily). */
  pieces: () => Iterable<Buffer>;
}

const text = (value: string) => () => [Buffer.from(value, 'utf8')];

function parts(expandedBytes: number): Part[] {
  const head = Buffer.from('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="2" uniqueCount="2"><si><t>email</t></si><si><t>');
  const tail = Buffer.from('</t></si></sst>');
  return [
    { name: '[Content_Types].xml', pieces: text('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>') },
    { name: '_rels/.rels', pieces: text('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>') },
    { name: 'xl/workbook.xml', pieces: text('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>') },
    { name: 'xl/_rels/workbook.xml.rels', pieces: text('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>') },
    { name: 'xl/worksheets/sheet1.xml', pieces: text('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>note</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>ann@example.com</t></is></c><c r="B2" t="s"><v>1</v></c></row></sheetData></worksheet>') },
    {
      name: 'xl/sharedStrings.xml',
      *pieces() {
        yield head;
        const block = Buffer.alloc(CHUNK, 'A');
        for (let left = expandedBytes; left > 0; left -= CHUNK) yield left >= CHUNK ? block : block.subarray(0, left);
        yield tail;
      },
    },
  ];
}

/** Writes little-endian fields into a zip header: [offset, bits, value]. */
function put(buffer: Buffer, fields: [number, 16 | 32, number][]): void {
  for (const [at, bits, value] of fields) {
    if (bits === 16) buffer.writeUInt16LE(value, at);
    else buffer.writeUInt32LE(value, at);
  }
}

/** Deflates one part into `out` from its pieces; returns its sizes and CRC-32. */
async function writeDeflated(out: NodeJS.WritableStream, part: Part): Promise<{ crc: number; size: number; compressed: number }> {
  const deflate = createDeflateRaw({ level: 9 });
  let compressed = 0;
  deflate.on('data', (chunk: Buffer) => {
    compressed += chunk.length;
    out.write(chunk);
  });
  let crc = 0;
  let size = 0;
  for (const piece of part.pieces()) {
    crc = crc32(piece, crc);
    size += piece.length;
    if (!deflate.write(piece)) await once(deflate, 'drain');
  }
  deflate.end();
  await once(deflate, 'end');
  return { crc, size, compressed };
}

/** Writes the workbook to `path`; sizes are known only after deflating, so each local header is patched in a second pass. */
export async function writeXlsxBomb(path: string, expandedBytes = 200 * 1024 * 1024): Promise<void> {
  const { open } = await import('node:fs/promises');
  const out = createWriteStream(path);
  const central: Buffer[] = [];
  const patches: { at: number; header: Buffer }[] = [];
  let offset = 0;
  const written = (n: number) => (offset += n);
  for (const part of parts(expandedBytes)) {
    const name = Buffer.from(part.name, 'utf8');
    const localAt = offset;
    const header = Buffer.alloc(30);
    out.write(header);
    out.write(name);
    written(30 + name.length);
    const { crc, size, compressed } = await writeDeflated(out, part);
    written(compressed);
    // Local file header: signature, version 2.0, no flags, deflate, no time, CRC, sizes, name length.
    put(header, [[0, 32, 0x04034b50], [4, 16, 20], [8, 16, 8], [14, 32, crc >>> 0], [18, 32, compressed], [22, 32, size], [26, 16, name.length]]);
    patches.push({ at: localAt, header });
    const entry = Buffer.alloc(46);
    // Central directory header: the same facts, and where the local header is.
    put(entry, [[0, 32, 0x02014b50], [4, 16, 20], [6, 16, 20], [10, 16, 8], [16, 32, crc >>> 0], [20, 32, compressed], [24, 32, size], [28, 16, name.length], [42, 32, localAt]]);
    central.push(entry, name);
  }
  const centralAt = offset;
  const centralBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  put(end, [[0, 32, 0x06054b50], [8, 16, patches.length], [10, 16, patches.length], [12, 32, centralBytes.length], [16, 32, centralAt]]);
  out.write(centralBytes);
  out.end(end);
  await once(out, 'finish');
  const handle = await open(path, 'r+');
  try {
    for (const { at, header } of patches) await handle.write(header, 0, header.length, at);
  } finally {
    await handle.close();
  }
}
