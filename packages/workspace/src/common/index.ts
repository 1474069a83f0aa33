export { escapeLike } from './like.js';
export { LIST_PAGE_SIZE, listPage, pageWindow } from './paging.js';
export type { ListPage, PageRequest } from './paging.js';
