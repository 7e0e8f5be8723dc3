import type { Verification } from '@verify-hub/core';
import { cellText, type CellValue } from './cells';
import type { FileLayout } from './layout';
import { RESULT_COLUMNS, emptyResultCells, resultCells } from './result-columns';

/**
 * Where each output cell goes: every input column in its place, then the result columns. A result
 * column the input already has (a file cleaned before) is filled in place instead of added twice.
 */
export class OutputColumns {
  readonly header: CellValue[];
  private readonly width: number;
  private readonly resultPositions: number[];

  constructor(layout: FileLayout) {
    this.width = layout.columns.length;
    const original: CellValue[] = layout.columns.map((name, i) => (layout.hasHeader && i < layout.header.length ? layout.header[i] ?? '' : name));
    const existing = new Map<string, number>();
    original.forEach((cell, i) => {
      const key = cellText(cell).trim().toLowerCase();
      if (!existing.has(key)) existing.set(key, i);
    });
    let next = this.width;
    this.resultPositions = RESULT_COLUMNS.map((name) => existing.get(name) ?? next++);
    this.header = [...original];
    RESULT_COLUMNS.forEach((name, j) => (this.header[this.resultPositions[j]!] = name));
  }

  row(cells: CellValue[], verification: Verification | undefined): CellValue[] {
    const out: CellValue[] = new Array(this.header.length).fill('');
    for (let i = 0; i < this.width && i < cells.length; i++) out[i] = cells[i] ?? '';
    // Cells past the header's width (a ragged .xlsx row) are kept after the result columns.
    for (let i = this.width; i < cells.length; i++) out.push(cells[i] ?? '');
    const results = verification ? resultCells(verification) : emptyResultCells();
    this.resultPositions.forEach((position, j) => (out[position] = results[j]!));
    return out;
  }
}
