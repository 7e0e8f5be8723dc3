/** A page's one error message, announced at once (role="alert"); nothing at all when there is none. */
export function ErrorAlert({ message, id }: { message?: string; id?: string }) {
  if (!message) return null;
  return (
    <p role="alert" class="alert" id={id}>
      {message}
    </p>
  );
}

/** A quiet confirmation ("Schedule created."), read out politely. */
export function Notice({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <p role="status" class="notice">
      {message}
    </p>
  );
}
