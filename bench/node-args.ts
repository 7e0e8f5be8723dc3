/** How a bench (or a child process a bench spawns) runs TypeScript from source. */
export const BENCH_NODE_ARGS = ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'];
