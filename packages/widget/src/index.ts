export { buildWidget, widgetEtag, type WidgetBuild } from './build.js';
export { WIDGET_PATHS, WIDGET_SNIPPET, escapeAttribute } from './snippet.js';
