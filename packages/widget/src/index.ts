export {
  buildWidget,
  CAPTURE_PATH,
  widgetEtag,
  type CaptureChunk,
  type WidgetBuild,
} from './build.js';
export { WIDGET_PATHS, WIDGET_SNIPPET, escapeAttribute } from './snippet.js';
