import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';

/**
 * A form's submit handler with its busy flag and its error: `action` gets the form's fields and does the
 * work (calls the API, navigates); a thrown ApiError is shown as the server said it, anything else as
 * `fallback`.
 */
export function useFormSubmit(action: (form: FormData) => Promise<void>, fallback: string) {
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      await action(form);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'unknown', fallback));
    } finally {
      setBusy(false);
    }
  }
  return { submit, error, busy };
}
