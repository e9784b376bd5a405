import { useQuery } from '@tanstack/react-query';
import { fetchSession, sessionQueryKey, type Session } from '../api/session';

/** The signed-in member's session, from the query cache the signed-in layout filled. */
export function useSession(): Session | undefined {
  return useQuery({ queryKey: sessionQueryKey, queryFn: fetchSession, staleTime: 60_000 }).data;
}

/** Whether the member holds a permission: a courtesy for the controls shown; the API enforces it. */
export function useHolds(permission: string): boolean {
  return useSession()?.permissions.includes(permission) ?? false;
}
