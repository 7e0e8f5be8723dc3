export { FileConnector, FILE_SCOPE, RECHECK_SCOPE } from './file-connector';
export type { FileInspection, FileProblem, FileSummary } from './file-connector';
export { fileConnectorFactory } from './factory';
export { CATEGORY_FILES, DEFAULT_MAX_ROWS, DEFAULT_PAGE_SIZE, REMOVABLE_RISKS, SPLIT_FORMATS, categoryOutput, recheckOutputs, resolveOptions } from './options';
export type { CategoryFile, FileConnectorOptions, RemovableRisk, SplitFormat } from './options';
export { categoryFileLabel } from './category-outputs';
export { RESULT_COLUMNS, resultCells } from './result-columns';
export { detectDelimiter } from './delimiter';
export type { CellValue } from './cells';
