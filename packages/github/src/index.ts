export * from './authorizations.js';
export * from './client.js';
export * from './config.js';
export * from './dispatches.js';
export * from './errors.js';
export * from './identity.js';
export * from './installations.js';
