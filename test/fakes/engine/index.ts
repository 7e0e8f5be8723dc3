export * from './fake-engine';
