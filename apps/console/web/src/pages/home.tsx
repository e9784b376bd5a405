import { useQuery } from '@tanstack/react-query';
import { fetchSession, sessionQueryKey } from '../api/session';

/** /: who is signed in, where, and with which permissions. */
export function HomePage() {
  const { data } = useQuery({ queryKey: sessionQueryKey, queryFn: fetchSession });
  if (!data) return null;
  return (
    <section>
      <h1>Welcome, {data.member.name || data.member.email}</h1>
      <p>
        You are signed in to {data.organization.name} ({data.environment}).
      </p>
      <h2>Your permissions</h2>
      <ul>
        {data.permissions.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </section>
  );
}
