/** Keeps a long-running command alive until SIGINT or SIGTERM, then closes it (drain, then exit). */
export function untilSignal(close: () => Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
