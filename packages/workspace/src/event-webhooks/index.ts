export {
  ERROR_EVENT_TYPES,
  EVENT_CATALOG,
  EVENT_TYPES,
  actorSchema,
  catalogJson,
  catalogJsonEntrySchema,
  dispatchData,
  eventEnvelopeSchema,
  groupData,
  isEventType,
  messageData,
  ticketData,
  WEBHOOK_TEST_TYPE,
  webhookTestBody,
  webhookTestJson,
  webhookTestSchema,
} from './catalog.js';
export type { CatalogJsonEntry, EventActor, EventData, EventType } from './catalog.js';
export { emitWorkspaceEvents, endpointWants, workspaceEvent } from './emit.js';
export type { OwedEvent, WorkspaceEvent } from './emit.js';
export {
  DEFAULT_OVERLAP_HOURS,
  DESCRIPTION_MAX,
  OVERLAP_HOURS_MAX,
  createEndpoint,
  deleteEndpoint,
  endpointInputSchema,
  endpointJsonSchema,
  endpointJson,
  findEndpoint,
  listEndpoints,
  recoverFailedDeliveries,
  requireEndpoint,
  rotateEndpointSecret,
  setEndpointEnabled,
  updateEndpoint,
  validateEndpoint,
} from './endpoints.js';
export type { Endpoint, EndpointInput, EndpointJson } from './endpoints.js';
