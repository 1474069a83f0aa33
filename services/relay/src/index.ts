export { relayManifest } from './manifest.js';
