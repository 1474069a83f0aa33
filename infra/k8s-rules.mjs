// What a schema cannot see in infra/k8s's rendered objects: that they fit together (selectors
// select, references resolve) and that each Ferry process is run the way it drains and is probed.

/** packages/http onShutdown: a drain that hangs is cut off (exit 1) after this long. */
export const SHUTDOWN_TIMEOUT_SECONDS = 25;

const idOf = (object) => `${object.kind}/${object.metadata?.name}`;
const byKind = (objects, kind) => objects.filter((object) => object.kind === kind);
const podSpecOf = (object) => object.spec?.template?.spec ?? {};
const podLabelsOf = (object) => object.spec?.template?.metadata?.labels ?? {};
const selects = (selector, labels) =>
  Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);

/** ConfigMaps and Secrets by name, with the keys each holds. */
function keysByName(objects, kind) {
  return new Map(
    byKind(objects, kind).map((object) => [
      object.metadata.name,
      new Set(Object.keys({ ...object.data, ...object.stringData })),
    ]),
  );
}

function referenceProblems(objects, workload, container) {
  const problems = [];
  const where = `${idOf(workload)} container ${container.name}`;
  const maps = {
    configMap: keysByName(objects, 'ConfigMap'),
    secret: keysByName(objects, 'Secret'),
  };
  for (const source of container.envFrom ?? []) {
    for (const [ref, kind] of [
      ['configMapRef', 'configMap'],
      ['secretRef', 'secret'],
    ]) {
      const name = source[ref]?.name;
      if (name && !source[ref].optional && !maps[kind].has(name)) {
        problems.push(`${where}: envFrom ${ref} ${name} is not defined`);
      }
    }
  }
  for (const variable of container.env ?? []) {
    for (const [ref, kind] of [
      ['configMapKeyRef', 'configMap'],
      ['secretKeyRef', 'secret'],
    ]) {
      const wanted = variable.valueFrom?.[ref];
      if (wanted && !wanted.optional && !maps[kind].get(wanted.name)?.has(wanted.key)) {
        problems.push(`${where}: ${variable.name} wants ${kind} ${wanted.name} key ${wanted.key}`);
      }
    }
  }
  return problems;
}

/** The seconds a container's preStop holds SIGTERM back (a `sleep` action, or none). */
const preStopSeconds = (container) => container.lifecycle?.preStop?.sleep?.seconds ?? 0;

function workloadProblems(objects, workload, servedBy) {
  const problems = [];
  const spec = podSpecOf(workload);
  if (
    workload.kind === 'Deployment' &&
    !selects(workload.spec?.selector?.matchLabels, podLabelsOf(workload))
  ) {
    problems.push(`${idOf(workload)}: spec.selector does not select its own pod template's labels`);
  }
  for (const container of spec.containers ?? []) {
    const where = `${idOf(workload)} container ${container.name}`;
    problems.push(...referenceProblems(objects, workload, container));
    const requests = container.resources?.requests ?? {};
    if (!requests.cpu || !requests.memory) problems.push(`${where}: requests no cpu and memory`);
    if (workload.kind !== 'Deployment') continue;
    const http = (container.ports ?? []).some((port) => port.name === 'http');
    const probe = (kind, wanted) => {
      const got = container[kind]?.httpGet;
      if (http && (got?.path !== wanted || got?.port !== 'http')) {
        problems.push(`${where}: ${kind} must GET ${wanted} on port http`);
      }
      if (!http && container[kind]) problems.push(`${where}: ${kind} without an http port`);
    };
    probe('readinessProbe', '/readyz');
    probe('livenessProbe', '/healthz');
    // Traffic keeps arriving until the endpoint's removal reaches every proxy: a pod behind a
    // Service waits in preStop before SIGTERM starts the drain.
    if (servedBy.has(workload.metadata.name) && preStopSeconds(container) < 1) {
      problems.push(
        `${where}: behind Service ${servedBy.get(workload.metadata.name)} but no preStop wait`,
      );
    }
    const needed = preStopSeconds(container) + SHUTDOWN_TIMEOUT_SECONDS;
    const grace = spec.terminationGracePeriodSeconds ?? 30;
    if (grace <= needed) {
      problems.push(
        `${where}: terminationGracePeriodSeconds ${grace} must exceed preStop + drain (${needed} s)`,
      );
    }
  }
  return problems;
}

/** Deployment name -> the Service that sends it traffic; and that Service's problems. */
function serviceProblems(objects, deployments) {
  const problems = [];
  const servedBy = new Map();
  for (const service of byKind(objects, 'Service')) {
    const targets = deployments.filter((deployment) =>
      selects(service.spec?.selector, podLabelsOf(deployment)),
    );
    if (!service.spec?.selector || targets.length === 0) {
      problems.push(`${idOf(service)}: its selector matches no Deployment's pods`);
    }
    for (const deployment of targets) {
      servedBy.set(deployment.metadata.name, service.metadata.name);
      const names = podSpecOf(deployment)
        .containers?.flatMap((c) => c.ports ?? [])
        .map((p) => p.name);
      for (const port of service.spec.ports ?? []) {
        if (typeof port.targetPort === 'string' && !names?.includes(port.targetPort)) {
          problems.push(
            `${idOf(service)}: targetPort ${port.targetPort} is no port of ${idOf(deployment)}`,
          );
        }
      }
    }
  }
  return { problems, servedBy };
}

function ingressProblems(objects) {
  const problems = [];
  const services = new Map(byKind(objects, 'Service').map((s) => [s.metadata.name, s]));
  for (const ingress of byKind(objects, 'Ingress')) {
    for (const rule of ingress.spec?.rules ?? []) {
      for (const { path, backend } of rule.http?.paths ?? []) {
        const service = services.get(backend?.service?.name);
        const port = backend?.service?.port;
        if (!service) {
          problems.push(
            `${idOf(ingress)}: ${path} routes to Service ${backend?.service?.name}, not defined`,
          );
        } else if (
          !service.spec.ports?.some((p) => p.name === port?.name || p.port === port?.number)
        ) {
          problems.push(
            `${idOf(ingress)}: ${path} routes to a port ${idOf(service)} does not have`,
          );
        }
      }
    }
  }
  return problems;
}

function autoscalerProblems(objects) {
  const problems = [];
  for (const hpa of byKind(objects, 'HorizontalPodAutoscaler')) {
    const target = hpa.spec?.scaleTargetRef;
    const deployment = byKind(objects, target?.kind ?? '').find(
      (d) => d.metadata.name === target?.name,
    );
    if (!deployment) {
      problems.push(`${idOf(hpa)}: scales ${target?.kind}/${target?.name}, not defined`);
    } else if (deployment.spec?.replicas !== undefined) {
      // Every apply would reset the count the autoscaler chose.
      problems.push(`${idOf(hpa)}: ${idOf(deployment)} sets replicas, which the autoscaler owns`);
    }
  }
  return problems;
}

/** The components README's first upgrade step applies (`-l`), before any service starts. */
const FIRST_STEP = new Set(['namespace', 'config', 'migrate']);

/** What the migrate Job needs must come with it in that step, or it waits on a missing Secret. */
function firstStepProblems(objects) {
  const problems = [];
  const component = (object) => object.metadata?.labels?.['app.kubernetes.io/component'];
  for (const job of byKind(objects, 'Job')) {
    if (!FIRST_STEP.has(component(job)))
      problems.push(`${idOf(job)}: not labelled component migrate`);
    const needed = (podSpecOf(job).containers ?? []).flatMap((container) =>
      (container.envFrom ?? []).map((source) =>
        source.configMapRef
          ? ['ConfigMap', source.configMapRef.name]
          : ['Secret', source.secretRef?.name],
      ),
    );
    for (const [kind, name] of needed) {
      const object = objects.find((o) => o.kind === kind && o.metadata?.name === name);
      if (object && !FIRST_STEP.has(component(object))) {
        problems.push(
          `${idOf(object)}: ${idOf(job)} needs it, but it is not labelled component config`,
        );
      }
    }
  }
  for (const namespace of byKind(objects, 'Namespace')) {
    if (!FIRST_STEP.has(component(namespace))) {
      problems.push(`${idOf(namespace)}: not labelled component namespace (applied first)`);
    }
  }
  return problems;
}

/** Everything wrong with how the rendered objects fit together, one line each. */
export function manifestProblems(objects) {
  const deployments = byKind(objects, 'Deployment');
  const { problems, servedBy } = serviceProblems(objects, deployments);
  for (const workload of [...deployments, ...byKind(objects, 'Job')]) {
    problems.push(...workloadProblems(objects, workload, servedBy));
  }
  return [
    ...problems,
    ...ingressProblems(objects),
    ...autoscalerProblems(objects),
    ...firstStepProblems(objects),
  ];
}
