export * from './fake-source';
export * from './fake-verifier';
