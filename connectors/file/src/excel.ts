import type * as ExcelJS from 'exceljs';

/**
 * exceljs, loaded on the first Excel file rather than with the connector: it takes about 0.3 s to
 * load, which CSV work and every `verify-hub` command that lists the platform modules would pay.
 */
export function excel(): typeof ExcelJS {
  return require('exceljs') as typeof ExcelJS;
}
