import { createRoute } from '@tanstack/react-router';
import type { SignedInRoute } from '../../app';

/**
 * The model gateway pages, each shaped like the API path it shows, as children of the signed-in
 * frame; app.tsx adds them to the route tree and the navigation lists `modelGatewayNavigation` under "Model gateway".
 */
export function createModelGatewayRoutes(parent: SignedInRoute) {
  void parent;
  void createRoute;
  return [] as const;
}

/** The navigation entries of this area, in order. */
export const modelGatewayNavigation: ReadonlyArray<{ to: string; label: string }> = [];
