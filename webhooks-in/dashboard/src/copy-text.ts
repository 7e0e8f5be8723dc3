/**
 * Copies `text` to the clipboard; without the clipboard API (plain http on another host) selects it in
 * `field` for Ctrl+C instead. Returns what to tell the user.
 */
export async function copyText(text: string, field: HTMLInputElement | HTMLTextAreaElement | null): Promise<string> {
  try {
    await navigator.clipboard.writeText(text);
    return 'Copied.';
  } catch {
    field?.focus();
    field?.select();
    return document.execCommand('copy') ? 'Copied.' : 'Selected: press Ctrl+C (⌘C) to copy.';
  }
}
