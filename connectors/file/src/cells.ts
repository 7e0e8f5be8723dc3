/** A cell as read: CSV cells are strings; .xlsx cells keep numbers, booleans and dates. */
export type CellValue = string | number | boolean | Date | null;

/** One item of an input file in file order: a parsed record, or a record that could not be parsed. */
export type SourceItem =
  | { kind: 'record'; cells: CellValue[]; line: number }
  | { kind: 'problem'; line: number; message: string; raw?: string };

export function cellText(cell: CellValue | undefined): string {
  if (cell instanceof Date) return cell.toISOString();
  return cell === null || cell === undefined ? '' : String(cell);
}

/** Loose shape check used for column detection and header sniffing (the engine does the real checking). */
export function looksLikeEmail(value: CellValue | undefined): boolean {
  return /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/.test(cellText(value).trim());
}
