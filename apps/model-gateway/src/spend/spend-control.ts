/**
 * The seam with @patchbay/gateway-spend: the gateway calls these exactly as the contract gives them.
 * Money is integer micro-USD inside; USD at the edges.
 */
export type { Admission, AdmitRequest, Environment, KeyUsage, Reservation, SpendControl, SpendLedger, SpendRecordFields, SpendSubject } from '@patchbay/gateway-spend';
