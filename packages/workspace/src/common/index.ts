export { escapeLike } from './like.js';
