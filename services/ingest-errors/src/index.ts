export * from './fingerprint.js';
export * from './report.js';
export * from './text.js';
