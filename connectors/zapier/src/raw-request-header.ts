/** A header from Zapier's raw request, whatever its case (and with Zapier's `Http-` prefix, if any). */
export function headerOf(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    const k = key.toLowerCase().replace(/_/g, '-');
    if (k === wanted || k === `http-${wanted}`) return value;
  }
  return undefined;
}
