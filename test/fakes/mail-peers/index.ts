export * from './dns-peer';
export * from './smtp-peer';
export * from './mail-world';
export * from './lab-world';
export * from './corpus-world';
