import type { SchemaReport } from './api-types';

/** What "Set up fields" did in the platform: the fields it created, those already there, anything to fix. */
export function SchemaReportView({ report }: { report: SchemaReport }) {
  const nothing = report.created.length + report.existing.length + report.problems.length === 0;
  return (
    <div class="schema-report" role="status">
      <h3>Fields</h3>
      {nothing && <p>Nothing to set up.</p>}
      {report.created.length > 0 && (
        <>
          <p>Created:</p>
          <ul>
            {report.created.map((name) => (
              <li key={name}>{name}</li>
            ))}
          </ul>
        </>
      )}
      {report.existing.length > 0 && (
        <>
          <p>Already there:</p>
          <ul>
            {report.existing.map((name) => (
              <li key={name}>{name}</li>
            ))}
          </ul>
        </>
      )}
      {report.problems.length > 0 && (
        <>
          <p class="problem">To fix:</p>
          <ul>
            {report.problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
