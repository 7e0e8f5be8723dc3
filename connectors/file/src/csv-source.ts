import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { open, type FileHandle } from 'node:fs/promises';
import { parse, type CsvError } from 'csv-parse';
import iconv from 'iconv-lite';
import type { SourceItem } from './cells';

/** How many times one file may restart after an unclosed quote before the rest of it is given up. */
const MAX_RESTARTS = 100;

/**
 * How far parsing runs ahead of the reader: records parsed ahead wait while the reader's page is being
 * verified. A 64 KiB read (the stream's default) parsed about 1,200 records at once; 8 KiB about 150.
 */
const READ_CHUNK_BYTES = 8 * 1024;
const QUEUE_PAUSE_AT = 64;
const QUEUE_RESUME_BELOW = 16;

/**
 * Text encodings of delimited files: UTF-8, or Windows-1252 (what Excel's plain "CSV" saves on
 * Western-European Windows), chosen when the first 64 KiB are not valid UTF-8.
 */
export type TextEncoding = 'utf8' | 'windows-1252';

/** The first bytes of a file as text (BOM removed), cut at the last complete line when the file is longer. */
export async function readHead(path: string, bytes = 64 * 1024): Promise<{ text: string; bom: boolean; encoding: TextEncoding }> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    const head = buffer.subarray(0, bytesRead);
    let encoding: TextEncoding = 'utf8';
    try {
      // `stream: true`: a character cut at the end of the sample is not an error.
      new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    } catch {
      encoding = 'windows-1252';
    }
    let text = encoding === 'utf8' ? head.toString('utf8') : iconv.decode(head, 'win1252');
    const bom = text.startsWith('\uFEFF');
    if (bom) text = text.slice(1);
    if (bytesRead === bytes) {
      const lastNewline = text.lastIndexOf('\n');
      if (lastNewline > 0) text = text.slice(0, lastNewline + 1);
    }
    return { text, bom, encoding };
  } finally {
    await handle.close();
  }
}

/**
 * Windows-1252 is parsed as Latin-1 (one byte per character, so byte offsets stay exact), then the
 * 27 characters where the two differ (0x80-0x9F: the euro sign, curly quotes, dashes) are fixed.
 */
function windows1252Cell(cell: string): string {
  return /[\x80-\x9f]/.test(cell) ? iconv.decode(Buffer.from(cell, 'latin1'), 'win1252') : cell;
}

/**
 * UTF-8 is parsed as Latin-1 too, for the same exact byte offsets (a restart after an unclosed quote
 * must land on the right byte, or rows shift), then decoded. Delimiters and quotes are ASCII, and
 * no byte of a multi-byte UTF-8 character is ASCII, so the split is the same.
 */
function utf8Cell(cell: string): string {
  return /[\x80-\xff]/.test(cell) ? Buffer.from(cell, 'latin1').toString('utf8') : cell;
}

interface Position {
  /** Line the parser has reached (lines of the whole file). */
  lines: number;
  /** Empty lines passed so far (they shift where the next record starts). */
  empty_lines: number;
  /** Bytes consumed, from the start of the parsed segment. */
  bytes: number;
}

type ParserEvent = { kind: 'record'; record: string[]; info: Position } | { kind: 'skip'; error: CsvError & Position & { records: number } };

/**
 * Streams the parser's events for the file from byte `start` in file order. The parser is never
 * paused, so each record reaches the 'data' listener as it is pushed, and its position is read there
 * from the parser's own counters (`parser.info`), before the next record moves them. csv-parse's
 * `info` option would build a snapshot per record by object spread, which V8 11 (Node 20) does slowly
 * and allocates as if long-lived: twice the parsing time, and ~100 MB promoted over the four reads of
 * a 50,000-row clean (issue 22). A check that the parser's record count is ours guards the reading.
 * The file stream is paused instead while the queue is full: at most one read's records (8 KiB) are
 * parsed past it. A skipped record is held until as many records as it says came before it
 * (`error.records`) were handed on.
 */
async function* parseSegment(path: string, delimiter: string, start: number): AsyncGenerator<ParserEvent> {
  const records: ParserEvent[] = [];
  const skips: ParserEvent[] = [];
  let handedOn = 0;
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const parser = parse({
    delimiter,
    encoding: 'latin1',
    // The BOM is passed over by the caller: with `bom` the parser would switch to UTF-8 decoding.
    bom: false,
    // A quote inside an unquoted field (`John "JJ" Doe`) is kept as text: with strict quoting the
    // parser loses good rows after such a field, with relaxed quoting it loses none.
    relax_quotes: true,
    // Field counts are checked by `readCsv`, the same way in every segment.
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
  });
  const input = createReadStream(path, { start, highWaterMark: READ_CHUNK_BYTES });
  let received = 0;
  parser.on('data', (record: string[]) => {
    const { lines, empty_lines, bytes, records: parsed } = parser.info;
    if (parsed !== ++received) {
      failure ??= new Error(`${path}: record ${received} reached the reader after the parser moved on (record ${parsed}): its position is unknown`);
      notify();
      return;
    }
    records.push({ kind: 'record', record, info: { lines, empty_lines, bytes } });
    if (records.length >= QUEUE_PAUSE_AT) input.pause();
    notify();
  });
  parser.on('skip', (error: CsvError & Position & { records: number }) => {
    skips.push({ kind: 'skip', error });
    notify();
  });
  parser.on('end', () => {
    ended = true;
    notify();
  });
  for (const stream of [parser, input]) {
    stream.on('error', (error: Error) => {
      failure = error;
      notify();
    });
  }
  // Fed by hand rather than piped: a pipe would resume the file stream on the parser's 'drain'.
  input.on('data', (chunk) => {
    parser.write(chunk);
  });
  input.on('end', () => parser.end());
  const skipDue = () => {
    const next = skips[0];
    return next?.kind === 'skip' && next.error.records <= handedOn;
  };
  try {
    for (;;) {
      if (skipDue()) {
        yield skips.shift()!;
        continue;
      }
      const event = records.shift();
      if (event) {
        if (records.length < QUEUE_RESUME_BELOW && input.isPaused()) input.resume();
        handedOn++;
        yield event;
        continue;
      }
      if (failure) throw failure;
      if (ended) {
        // Every record was handed on: what is left came after the last one.
        const rest = skips.shift();
        if (!rest) return;
        yield rest;
        continue;
      }
      if (input.isPaused()) input.resume();
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    input.destroy();
    parser.destroy();
  }
}

/** From byte `offset`, passes blank lines and then one line: where the next read starts, and how many lines were passed. */
async function pastNextLine(path: string, offset: number): Promise<{ offset: number; blankLines: number }> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    let position = offset;
    let blankLines = 0;
    let lineHasText = false;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) return { offset: position, blankLines };
      for (let i = 0; i < bytesRead; i++) {
        const byte = buffer[i]!;
        if (byte === 0x0a) {
          if (lineHasText) return { offset: position + i + 1, blankLines };
          blankLines++;
        } else if (byte !== 0x0d) {
          lineHasText = true;
        }
      }
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** 3 when the file starts with a UTF-8 byte-order mark (reading starts after it), else 0. */
async function utf8BomLength(path: string): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(3);
    const { bytesRead } = await handle.read(head, 0, 3, 0);
    return bytesRead === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  } finally {
    await handle.close();
  }
}

/** The text of bytes [from, to) of the file (a broken record, for the rejected-rows file), blank lines and the line break cut. */
async function readRange(handle: FileHandle, from: number, to: number, encoding: TextEncoding): Promise<string> {
  const buffer = Buffer.alloc(Math.max(0, to - from));
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
  const bytes = buffer.subarray(0, bytesRead);
  const text = encoding === 'utf8' ? bytes.toString('utf8') : iconv.decode(bytes, 'win1252');
  return text.replace(/^(?:[ \t]*\r?\n)+/, '').replace(/\r?\n$/, '');
}

/**
 * Whether a record's text is quoted as RFC 4180 says: a quote opens a field only at its start, and
 * closes it only before a delimiter or the end of a line (`""` inside is a quote). Relaxed parsing
 * accepts more, which is right within one line (`John "JJ" Doe`), but a record over several lines that
 * is not quoted this way is a quote left open, closed by chance by a stray quote lines later: it
 * swallowed good rows, it is not a cell holding a line break.
 */
function wellQuoted(raw: string, delimiter: string): boolean {
  let inQuotes = false;
  let fieldStart = true;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inQuotes) {
      if (c !== '"') continue;
      if (raw[i + 1] === '"') {
        i++;
        continue;
      }
      const next = raw[i + 1];
      if (next !== undefined && next !== '\r' && next !== '\n' && !raw.startsWith(delimiter, i + 1)) return false;
      inQuotes = false;
    } else if (fieldStart && c === '"') {
      inQuotes = true;
      fieldStart = false;
    } else if (raw.startsWith(delimiter, i)) {
      fieldStart = true;
      i += delimiter.length - 1;
    } else if (c === '\r' || c === '\n') {
      return false; // a line break outside quotes, inside one record
    } else {
      fieldStart = false;
    }
  }
  return !inQuotes;
}

/** Every non-blank line from byte `offset` as a problem: what is left when a file is given up. */
async function* remainingLines(path: string, offset: number, firstLine: number, encoding: TextEncoding, message: string): AsyncGenerator<SourceItem> {
  const stream = createReadStream(path, { start: offset });
  const lines = createInterface({ input: encoding === 'utf8' ? stream : stream.pipe(iconv.decodeStream('win1252')), crlfDelay: Infinity });
  let line = firstLine;
  try {
    for await (const text of lines) {
      if (text.trim() !== '') yield { kind: 'problem', line, message, raw: text };
      line++;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}

const UNCLOSED = 'a quote opened on this line is never closed: the line is left out';

/**
 * Streams the records of a delimited file in file order, each broken record as a `problem` at the line
 * where it starts (with its text, `raw`), without stopping: a record with another number of fields
 * than the header is reported; a quote that is never closed (which would swallow the rest of the
 * file), or closed only by a stray quote lines later (`unpairedQuote`), costs only its own line:
 * reading starts again on the next line. After `MAX_RESTARTS`, each line left is reported as it is.
 */
export async function* readCsv(path: string, delimiter: string, encoding: TextEncoding = 'utf8'): AsyncGenerator<SourceItem> {
  let start = await utf8BomLength(path);
  let lineBase = 0;
  let width: number | undefined;
  // Broken records are read back as text (for the rejected-rows file) through one handle.
  const handle = await open(path, 'r');
  try {
    for (let restarts = 0; ; restarts++) {
      // Where the last record (or broken record) ended, in whole-file lines and bytes.
      let lastLine = lineBase;
      let lastEmpty = 0;
      let lastByte = start;
      let restart: string | undefined;
      const startLine = (position: Position) => lastLine + 1 + (position.empty_lines - lastEmpty);
      for await (const event of parseSegment(path, delimiter, start)) {
        if (event.kind === 'record') {
          const { record, info } = event;
          if (width === undefined) width = record.length;
          const first = startLine(info);
          const last = lineBase + info.lines;
          const raw = last > first || record.length !== width ? await readRange(handle, lastByte, start + info.bytes, encoding) : undefined;
          if (last > first && !wellQuoted(raw!, delimiter)) {
            // The good rows the open quote swallowed are read again, from the next line.
            restart = `a quote opened on this line is never closed (it ran over lines ${first}-${last}): the line is left out`;
            break;
          }
          if (record.length === width) yield { kind: 'record', cells: record.map(encoding === 'utf8' ? utf8Cell : windows1252Cell), line: first };
          else {
            const span = last > first ? ` (a record over lines ${first}-${last})` : '';
            yield { kind: 'problem', line: first, message: `wrong number of fields: expected ${width}, got ${record.length}${span}`, raw };
          }
          lastLine = last;
          lastEmpty = info.empty_lines;
          lastByte = start + info.bytes;
        } else if (event.error.code === 'CSV_QUOTE_NOT_CLOSED') {
          restart = UNCLOSED;
          break;
        } else {
          const raw = await readRange(handle, lastByte, start + event.error.bytes, encoding);
          yield { kind: 'problem', line: startLine(event.error), message: event.error.message, raw };
          lastLine = lineBase + event.error.lines;
          lastEmpty = event.error.empty_lines;
          lastByte = start + event.error.bytes;
        }
      }
      if (restart === undefined) return;
      const next = await pastNextLine(path, lastByte);
      const brokenLine = lastLine + next.blankLines + 1;
      if (restarts >= MAX_RESTARTS) {
        yield* remainingLines(path, lastByte, lastLine + 1, encoding, 'not read: too many broken lines before this one (fix the quotes above and clean the file again)');
        return;
      }
      yield { kind: 'problem', line: brokenLine, message: restart, raw: await readRange(handle, lastByte, next.offset, encoding) };
      start = next.offset;
      lineBase = brokenLine;
    }
  } finally {
    await handle.close();
  }
}
