import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parse, type CsvError } from 'csv-parse';
import iconv from 'iconv-lite';
import type { SourceItem } from './cells';

/** How many times one file may restart after an unclosed quote before the rest of it is given up. */
const MAX_RESTARTS = 100;

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

interface Position {
  /** Line the parser has reached (lines of the whole file). */
  lines: number;
  /** Empty lines passed so far (they shift where the next record starts). */
  empty_lines: number;
  /** Bytes consumed, from the start of the parsed segment. */
  bytes: number;
}

type ParserEvent = { kind: 'record'; record: string[]; info: Position } | { kind: 'skip'; error: CsvError & Position };

/**
 * Streams the parser's events for the file from byte `start` in the order they fire: records and
 * skipped records interleave exactly as in the file. The parser is paused while the queue is full.
 */
async function* parseSegment(path: string, delimiter: string, encoding: TextEncoding, start: number): AsyncGenerator<ParserEvent> {
  const queue: ParserEvent[] = [];
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
    encoding: encoding === 'utf8' ? 'utf8' : 'latin1',
    bom: start === 0,
    info: true,
    // A quote inside an unquoted field (`John "JJ" Doe`) is kept as text: with strict quoting the
    // parser loses good rows after such a field, with relaxed quoting it loses none.
    relax_quotes: true,
    // Field counts are checked by `readCsv`, the same way in every segment.
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
  });
  const input = createReadStream(path, { start });
  parser.on('data', (item: { record: string[]; info: Position }) => {
    queue.push({ kind: 'record', record: item.record, info: item.info });
    if (queue.length >= 512) parser.pause();
    notify();
  });
  parser.on('skip', (error: CsvError & Position) => {
    queue.push({ kind: 'skip', error });
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
  input.pipe(parser);
  try {
    for (;;) {
      const event = queue.shift();
      if (event) {
        if (queue.length < 128 && parser.isPaused()) parser.resume();
        yield event;
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      if (parser.isPaused()) parser.resume();
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    input.unpipe(parser);
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

function describe(error: CsvError): string {
  return error.code === 'CSV_QUOTE_NOT_CLOSED' ? 'a quote opened on this line is never closed: the line is left out' : error.message;
}

/**
 * Streams the records of a delimited file in file order, each broken record as a `problem` at the line
 * where it starts, without stopping: a record with another number of fields than the header is
 * reported; a quote that is never closed (which would swallow the rest of the file) costs only its
 * own line: reading starts again on the next line.
 */
export async function* readCsv(path: string, delimiter: string, encoding: TextEncoding = 'utf8'): AsyncGenerator<SourceItem> {
  let start = 0;
  let lineBase = 0;
  let width: number | undefined;
  for (let restarts = 0; ; restarts++) {
    // Where the last record (or broken record) ended, in whole-file lines and bytes.
    let lastLine = lineBase;
    let lastEmpty = 0;
    let lastByte = start;
    let unclosedQuote = false;
    const startLine = (position: Position) => lastLine + 1 + (position.empty_lines - lastEmpty);
    for await (const event of parseSegment(path, delimiter, encoding, start)) {
      if (event.kind === 'record') {
        const { record, info } = event;
        if (width === undefined) width = record.length;
        if (record.length === width) yield { kind: 'record', cells: encoding === 'utf8' ? record : record.map(windows1252Cell), line: startLine(info) };
        else {
          const first = startLine(info);
          const span = lineBase + info.lines > first ? ` (a record over lines ${first}-${lineBase + info.lines})` : '';
          yield { kind: 'problem', line: first, message: `wrong number of fields: expected ${width}, got ${record.length}${span}` };
        }
        lastLine = lineBase + info.lines;
        lastEmpty = info.empty_lines;
        lastByte = start + info.bytes;
      } else if (event.error.code === 'CSV_QUOTE_NOT_CLOSED') {
        unclosedQuote = true;
        break;
      } else {
        yield { kind: 'problem', line: startLine(event.error), message: describe(event.error) };
        lastLine = lineBase + event.error.lines;
        lastEmpty = event.error.empty_lines;
        lastByte = start + event.error.bytes;
      }
    }
    if (!unclosedQuote) return;
    const next = await pastNextLine(path, lastByte);
    const brokenLine = lastLine + next.blankLines + 1;
    if (restarts >= MAX_RESTARTS) {
      yield { kind: 'problem', line: brokenLine, message: `a quote opened on this line is never closed: too many broken lines, the rest of the file from here is left out` };
      return;
    }
    yield { kind: 'problem', line: brokenLine, message: describe({ code: 'CSV_QUOTE_NOT_CLOSED' } as CsvError) };
    start = next.offset;
    lineBase = brokenLine;
  }
}
