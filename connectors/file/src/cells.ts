/** A cell as the connector carries it: CSV cells are strings; .xlsx cells keep numbers and booleans (dates become ISO strings). */
export type CellValue = string | number | boolean | null;

/** One item of an input file in file order: a parsed record, or a record that could not be parsed. */
export type SourceItem =
  | { kind: 'record'; cells: CellValue[]; line: number }
  | { kind: 'problem'; line: number; message: string };

export function cellText(cell: CellValue | undefined): string {
  return cell === null || cell === undefined ? '' : String(cell);
}

/** Loose shape check used for column detection and header sniffing (the engine does the real checking). */
export function looksLikeEmail(value: CellValue | undefined): boolean {
  return /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/.test(cellText(value).trim());
}
