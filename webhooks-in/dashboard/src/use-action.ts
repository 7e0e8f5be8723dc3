import { useState } from 'preact/hooks';
import { rescueFocus } from './focus';

/**
 * One action at a time for a page's buttons. The buttons stay enabled while one runs (a disabled
 * focused button would drop the keyboard focus), so a repeat is ignored instead; `busy` names the one
 * running (for aria-busy). A failure goes to `failed`; afterwards the focus is put back on the page if
 * the action removed the focused control.
 */
export function useAction<Key>(failed: (caught: unknown) => void): { busy: Key | undefined; perform: (key: Key, work: () => Promise<void>) => Promise<void> } {
  const [busy, setBusy] = useState<Key>();
  const perform = async (key: Key, work: () => Promise<void>) => {
    if (busy !== undefined) return;
    setBusy(key);
    try {
      await work();
    } catch (caught) {
      failed(caught);
    } finally {
      setBusy(undefined);
      rescueFocus();
    }
  };
  return { busy, perform };
}
