import { createRoute } from '@tanstack/react-router';
import type { SignedInRoute } from '../../app';

/**
 * The tool connectors pages, each shaped like the API path it shows, as children of the signed-in
 * frame; app.tsx adds them to the route tree and the navigation lists `toolConnectorNavigation` under "Tool connectors".
 */
export function createToolConnectorRoutes(parent: SignedInRoute) {
  void parent;
  void createRoute;
  return [] as const;
}

/** The navigation entries of this area, in order. */
export const toolConnectorNavigation: ReadonlyArray<{ to: string; label: string }> = [];
