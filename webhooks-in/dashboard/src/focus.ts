/**
 * After an action that removed the focused control (a run cancelled, a card deleted), focus goes to the
 * page's heading rather than back to the start of the document. Run after the re-render.
 */
export function rescueFocus(): void {
  setTimeout(() => {
    const active = document.activeElement;
    if (!active || active === document.body) document.querySelector<HTMLElement>('main h1')?.focus();
  }, 0);
}
