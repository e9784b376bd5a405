// The shared wire types, under the names the OpenAPI document shows.
export type { ErrorEnvelope as ErrorBody } from '@patchbay/errors';
export type { PageNumberList as PaginatedList } from '@patchbay/pagination';
