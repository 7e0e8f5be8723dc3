export const BROKEN_FILE_ROWS = 5000;

/**
 * 5,000 rows (over 64 KiB, non-ASCII names, CRLF) with an unclosed quote in row 4,990, a NUL in the
 * address of row 100, a row with a field too many (row 200), and formula-looking cells. Row r is on
 * line r + 1 and has the address p<r>@example.com (`bad...` ones are invalid for the fake verifier).
 */
export function brokenFileText(): string {
  const lines = ['name,email,note'];
  for (let r = 1; r <= BROKEN_FILE_ROWS; r++) {
    let line = `Pérsön ${r},p${r}@example.com,"nöte, ${r}"`;
    if (r === 100) line = `Nul ${r},p${r}\u0000@example.com,x`;
    if (r === 200) line = `Wide ${r},p${r}@example.com,a,b`;
    if (r === 300) line = `"=HYPERLINK(""http://x.example"",""y"")",p${r}@example.com,+1 555`;
    if (r === 301) line = `@SUM(1),bad${r}@example.com,-2`;
    if (r === 4990) line = `Open ${r},p${r}@example.com,"never closed`;
    lines.push(line);
  }
  return lines.join('\r\n') + '\r\n';
}

/** The row number each output row stands for, from its address (rows 100 and 301 have their own). */
export const rowOf = (email: string): number => Number(/^(?:p|bad)(\d+)/.exec(email)?.[1]);
