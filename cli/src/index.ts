// Filled in by this package's issue.
export {};
