/** The minified contents of widget.css, inlined by buildWidget (esbuild `define`). */
declare const __WIDGET_CSS__: string;
