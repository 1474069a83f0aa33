export {
  FEEDBACK_STATUSES,
  assignableMembers,
  markTriagedByDispatch,
  triageFeedback,
  triageSchema,
} from './feedback-triage.js';
export type { Assignee, TriageActor, TriageInput } from './feedback-triage.js';
export {
  CONTEXT_OUTER_HTML_MAX,
  CONTEXT_PARTIALS_MAX,
  FEEDBACK_PAGE_SIZE,
  conversationMessages,
  conversationName,
  conversationParticipants,
  countFeedbackByStatus,
  dispatchJson,
  excerpt,
  feedbackJson,
  fileFeedback,
  fileFeedbackSchema,
  findFeedback,
  listDispatches,
  listFeedback,
  summaryMessage,
  ticketContext,
  ticketPageUrl,
  ticketJson,
} from './feedback.js';
export type {
  FeedbackFilter,
  FeedbackPage,
  FileFeedbackInput,
  Participant,
  Ticket,
  TicketContext,
} from './feedback.js';
export {
  LINKS_SHOWN,
  LINK_WINDOW_MINUTES,
  groupTickets,
  groupTicketsJson,
  groupTicketsJsonSchema,
  idIn,
  linkOccurrencesToTickets,
  linkTicketToGroup,
  linkedErrorJson,
  linkTicketToVisitorErrors,
  moveErrorLinks,
  ticketErrorGroups,
  unlinkTicketFromGroup,
} from './error-links.js';
export type {
  GroupTickets,
  LinkInput,
  LinkedErrorGroup,
  LinkedTicket,
  VisitorOccurrence,
} from './error-links.js';
export {
  EVIDENCE_LIMITS,
  EVIDENCE_MAX_BYTES,
  EVIDENCE_MAX_ENTRIES,
  evidenceFieldSchema,
  evidenceSchema,
  findEvidence,
  insertEvidence,
  maskQuery,
  prepareEvidence,
} from './evidence.js';
export type { EvidenceInput, PreparedEvidence } from './evidence.js';
export {
  WORK_EVIDENCE_LIMITS,
  WORK_EVIDENCE_MAX_BYTES,
  workEvidence,
  workEvidenceSchema,
  workTicket,
} from './work-evidence.js';
export type { WorkEvidence, WorkTicket } from './work-evidence.js';
export {
  SCREENSHOT_BODY_LIMIT,
  SCREENSHOT_MAX_BYTES,
  SCREENSHOT_TOO_LARGE,
  checkScreenshotBytes,
  findScreenshot,
  imageSize,
  insertScreenshot,
  parseScreenshotField,
  screenshotMeta,
  sniffImageType,
} from './screenshots.js';
export type { CheckedScreenshot, ScreenshotMeta } from './screenshots.js';
export {
  VISITOR_TOKEN_KIND,
  createTenantCache,
  findVisitorId,
  identifyVisitor,
  registerVisitor,
  visitorIdentitySchema,
} from './visitors.js';
export type { TenantCache, VisitorIdentity } from './visitors.js';
export {
  dispatchJsonSchema,
  feedbackJsonSchema,
  linkedErrorJsonSchema,
  ticketJsonSchema,
  ticketWithLinksJsonSchema,
} from './api-schemas.js';
export type { DispatchJson, FeedbackJson, LinkedErrorJson } from './api-schemas.js';
