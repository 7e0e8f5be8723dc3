export { FileConnector, FILE_SCOPE, RECHECK_SCOPE } from './file-connector';
export type { FileInspection, FileProblem, FileSummary } from './file-connector';
export { fileConnectorFactory } from './factory';
export { DEFAULT_MAX_ROWS, DEFAULT_PAGE_SIZE, REMOVABLE_RISKS, recheckOutputs, resolveOptions } from './options';
export type { FileConnectorOptions, RemovableRisk } from './options';
export { RESULT_COLUMNS, resultCells } from './result-columns';
export { detectDelimiter } from './delimiter';
export type { CellValue } from './cells';
