/** The minified contents of widget.css, inlined by buildWidget (esbuild `define`). */
declare const __WIDGET_CSS__: string;
/** The screenshot chunk's path with its content hash, beside v1.js (buildWidget `define`). */
declare const __CAPTURE_PATH__: string;
