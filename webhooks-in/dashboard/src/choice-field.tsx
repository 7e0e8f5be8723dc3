import { useState } from 'preact/hooks';
import { errorMessage, listKeyFieldChoices } from './api';
import type { KeyField, KeyFieldChoice } from './api-types';

/**
 * A key field whose options the hub lists from the platform (Mailchimp's audiences), once the other
 * fields (the API key) are filled in: picked from a list, or typed when listing fails or is not wanted.
 */
export function ChoiceField({
  platform,
  field,
  id,
  value,
  onChange,
  otherFields,
  otherValues,
  invalid,
  describedBy,
}: {
  platform: string;
  field: KeyField;
  id: string;
  value: string;
  onChange: (value: string) => void;
  otherFields: KeyField[];
  otherValues: Record<string, string>;
  invalid: boolean;
  describedBy?: string;
}) {
  const [choices, setChoices] = useState<KeyFieldChoice[]>();
  const [typing, setTyping] = useState(true);
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const problemId = `${id}-choices-problem`;
  const described = [describedBy, problem ? problemId : ''].filter(Boolean).join(' ') || undefined;

  const list = async () => {
    const missing = otherFields.find((other) => !(otherValues[other.name] ?? '').trim());
    if (missing) return setProblem(`Fill in the ${missing.label} first.`);
    const body = Object.fromEntries(otherFields.map((other) => [other.name, (otherValues[other.name] ?? '').trim()]));
    setBusy(true);
    setProblem(undefined);
    try {
      const answer = await listKeyFieldChoices(platform, field.name, body);
      setChoices(answer.choices);
      if (answer.choices.length === 0) setProblem(`None found in this account: type the ${field.label} instead.`);
      else {
        setTyping(false);
        if (!answer.choices.some((choice) => choice.value === value)) onChange('');
      }
    } catch (caught) {
      setProblem(`${errorMessage(caught)} You can still type the ${field.label}.`);
    } finally {
      setBusy(false);
    }
  };

  const picking = !typing && choices !== undefined && choices.length > 0;
  return (
    <>
      {picking ? (
        <select id={id} name={field.name} value={value} aria-invalid={invalid ? 'true' : undefined} aria-describedby={described} onChange={(event) => onChange(event.currentTarget.value)}>
          <option value="">Choose…</option>
          {choices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.detail ? `${choice.label} (${choice.detail})` : choice.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          name={field.name}
          type="text"
          autocomplete="off"
          spellcheck={false}
          value={value}
          aria-invalid={invalid ? 'true' : undefined}
          aria-describedby={described}
          onInput={(event) => onChange(event.currentTarget.value)}
        />
      )}
      <div class="actions">
        {picking ? (
          <button type="button" class="secondary" onClick={() => setTyping(true)}>
            Type it instead
          </button>
        ) : (
          <button type="button" class="secondary" aria-busy={busy ? 'true' : undefined} onClick={() => void list()}>
            List from your account
          </button>
        )}
      </div>
      {problem && (
        <p id={problemId} role="alert" class="alert small">
          {problem}
        </p>
      )}
    </>
  );
}
