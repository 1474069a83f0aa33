/** What makes a kustomization impossible to render (infra/k8s-render.mjs), said plainly. */
export class RenderError extends Error {}
