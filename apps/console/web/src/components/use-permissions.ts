import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type PermissionEntry } from '../api/api';

export const permissionsQueryKey = ['permissions'] as const;

/** The permission catalog (GET /api/v1/permissions): codenames with display names, fetched once. */
export function usePermissionCatalog(): PermissionEntry[] | undefined {
  return useQuery({ queryKey: permissionsQueryKey, queryFn: async () => (await unwrap(api.GET('/api/v1/permissions'))).results, staleTime: Infinity }).data;
}

/** "Manage members (manage_members)": how a control names the permission it needs. */
export function usePermissionLabel(codename: string): string {
  const name = usePermissionCatalog()?.find((p) => p.codename === codename)?.display_name;
  return name ? `${name} (${codename})` : codename;
}
