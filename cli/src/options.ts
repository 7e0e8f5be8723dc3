import { InvalidArgumentError } from 'commander';

/** commander parsers: a bad value becomes a usage error (exit 2) naming what was expected. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of 1 or more');
  return n;
}

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('must be a whole number of 0 or more');
  return n;
}

export function riskList(allowed: readonly string[]) {
  return (value: string, previous: string[] = []): string[] => {
    const risks = value.split(',').map((r) => r.trim().toLowerCase()).filter(Boolean);
    for (const r of risks) if (!allowed.includes(r)) throw new InvalidArgumentError(`"${r}" is not one of ${allowed.join(', ')}`);
    return [...new Set([...previous, ...risks])];
  };
}

export function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 65535) throw new InvalidArgumentError('must be a whole number from 0 to 65535');
  return n;
}
