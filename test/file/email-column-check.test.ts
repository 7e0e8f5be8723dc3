import { writeFile } from 'node:fs/promises';
import { FileConnector } from '@verify-hub/connector-file';
import { tempDir } from './helpers';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => (tmp = await tempDir()));
afterEach(async () => tmp.cleanup());

/** Rows of name, email, notes: `addresses` of every 10 notes look like addresses. */
async function writeContacts(rows: number, notesWithAddress = 0): Promise<string> {
  const input = tmp.file('contacts.csv');
  const lines = Array.from({ length: rows }, (_, i) => `Person ${i},p${i}@example.com,${i % 10 < notesWithAddress ? `other${i}@example.org` : `note ${i}`}`);
  await writeFile(input, ['Name,Email,Notes', ...lines].join('\n'));
  return input;
}

describe('the wrong-column guard', () => {
  it('finds nothing to say about a detected email column', async () => {
    const check = (await new FileConnector({ input: await writeContacts(40) }).inspect()).emailCheck;
    expect(check).toEqual({ sampled: 40, addresses: 40, percent: 100 });
  });

  it('warns when under half of a chosen column looks like addresses, naming the column, the share and the better column', async () => {
    const inspection = await new FileConnector({ input: await writeContacts(40), column: 'Name' }).inspect();
    expect(inspection.emailColumn).toBe('Name');
    expect(inspection.emailCheck).toMatchObject({ sampled: 40, addresses: 0, percent: 0, suggestedColumn: 'Email' });
    expect(inspection.emailCheck.warning).toBe('only 0% of the values in column "Name" look like email addresses; is this the email column? Column "Email" looks like one.');
  });

  it('counts the share among non-empty values, and suggests nothing when no column does better', async () => {
    // Notes: 3 of every 10 look like addresses (30%); the Email column is removed so nothing is better.
    const input = tmp.file('notes.csv');
    await writeFile(input, ['Name,Notes', ...Array.from({ length: 20 }, (_, i) => `P${i},${i % 10 < 3 ? `x${i}@example.org` : i % 10 === 9 ? '' : `note ${i}`}`)].join('\n'));
    const check = (await new FileConnector({ input, column: 'Notes' }).inspect()).emailCheck;
    expect(check).toMatchObject({ sampled: 18, addresses: 6, percent: 33 });
    expect(check.suggestedColumn).toBeUndefined();
    expect(check.warning).toBe('only 33% of the values in column "Notes" look like email addresses; is this the email column?');
  });

  it('does not warn at half or more', async () => {
    const check = (await new FileConnector({ input: await writeContacts(40, 5), column: 'Notes' }).inspect()).emailCheck;
    expect(check).toMatchObject({ percent: 50 });
    expect(check.warning).toBeUndefined();
  });
});
