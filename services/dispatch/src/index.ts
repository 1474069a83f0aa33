export { DISPATCH_API_PATH, createDispatchApp, dispatchRouter } from './app.js';
export { loadDispatchConfig, loadDispatchSettings } from './config.js';
export type { DispatchConfig, DispatchSettings } from './config.js';
export { dispatchDeps } from './deps.js';
export type { DispatchDeps, DispatchDepsOptions } from './deps.js';
export { advanceDispatch } from './flow.js';
export { agentPrompt, dispatchMarker, issueBody, issueTitle } from './issue-body.js';
export { DISPATCH_QUEUES, dispatchJobs } from './jobs/index.js';
export { dispatchManifest } from './manifest.js';
