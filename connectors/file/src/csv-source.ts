import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parse, type CsvError } from 'csv-parse';
import type { SourceItem } from './cells';

/** Options shared by every read of a delimited file, so that every pass sees the same records. */
function parserOptions(delimiter: string) {
  return {
    delimiter,
    bom: true,
    info: true,
    // A quote inside an unquoted field (`John "JJ" Doe`) is kept as text: strict quoting makes the parser
    // lose good rows after such a field, relaxed quoting loses none.
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
  } as const;
}

/** The first bytes of a file as text (BOM removed), cut at the last complete line when the file is longer. */
export async function readHead(path: string, bytes = 64 * 1024): Promise<{ text: string; bom: boolean }> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    let text = buffer.subarray(0, bytesRead).toString('utf8');
    const bom = text.startsWith('\uFEFF');
    if (bom) text = text.slice(1);
    if (bytesRead === bytes) {
      const lastNewline = text.lastIndexOf('\n');
      if (lastNewline > 0) text = text.slice(0, lastNewline + 1);
    }
    return { text, bom };
  } finally {
    await handle.close();
  }
}

function describe(error: CsvError): string {
  switch (error.code) {
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
      return error.message.replace(/ on line \d+$/, '').replace('Invalid Record Length: expect', 'wrong number of fields: expected');
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is never closed: the rest of the file could not be read';
    default:
      return error.message;
  }
}

/**
 * Streams the records of a delimited file in file order, each broken record as a `problem` with its
 * line number, without stopping. Parser events are queued in the order they fire (records and skipped
 * records interleaved exactly as in the file); the parser is paused while the queue is full.
 */
export async function* readCsv(path: string, delimiter: string): AsyncGenerator<SourceItem> {
  const queue: SourceItem[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  let lastLine = 0;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  const parser = parse(parserOptions(delimiter));
  const input = createReadStream(path);
  parser.on('data', (item: { record: string[]; info: { lines: number } }) => {
    lastLine = item.info.lines;
    queue.push({ kind: 'record', cells: item.record, line: item.info.lines });
    if (queue.length >= 512) parser.pause();
    notify();
  });
  parser.on('skip', (error: CsvError) => {
    // An unclosed quote is found at the end of the file; the record began after the last good one.
    const line = error.code === 'CSV_QUOTE_NOT_CLOSED' ? lastLine + 1 : Number(error.lines ?? lastLine + 1);
    queue.push({ kind: 'problem', line, message: describe(error) });
    notify();
  });
  parser.on('end', () => {
    ended = true;
    notify();
  });
  parser.on('error', (error: Error) => {
    failure = error;
    notify();
  });
  input.on('error', (error) => {
    failure = error;
    notify();
  });
  input.pipe(parser);

  try {
    for (;;) {
      const item = queue.shift();
      if (item) {
        if (queue.length < 128 && parser.isPaused()) parser.resume();
        yield item;
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
