// infra/k8s and docker-compose.yml describe one deployment twice; this keeps them from drifting.
// Every compose service built from our image has a workload of the same name (a Job for the
// one-shot `migrate`, a Deployment otherwise) and back; each runs the same command, gets every
// variable compose gives it (the same value where compose fixes one: INGEST_ROLE, WEB_RELAY, ...,
// not where compose takes it from the operator, `${NAME:-default}`), and is probed over HTTP
// exactly when compose's health check is on (relay and ingest-errors-worker serve no HTTP).
import fs from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';

const idOf = (object) => `${object.kind}/${object.metadata?.name}`;

/** The compose services built from our image (the stores and the proxy are someone else's). */
export function composeAppServices(file) {
  const compose = parse(fs.readFileSync(file, 'utf8'), { merge: true });
  return Object.entries(compose?.services ?? {}).filter(([, service]) => service.build);
}

/** What a container's environment holds: each variable's source, and its value unless secret. */
function environmentOf(objects, container) {
  const data = (kind, name) =>
    objects.find((object) => object.kind === kind && object.metadata?.name === name);
  const environment = new Map();
  for (const source of container.envFrom ?? []) {
    const fromMap = source.configMapRef && data('ConfigMap', source.configMapRef.name);
    const fromSecret = source.secretRef && data('Secret', source.secretRef.name);
    for (const [key, value] of Object.entries(fromMap?.data ?? {})) {
      environment.set(key, { value });
    }
    for (const key of Object.keys({ ...fromSecret?.data, ...fromSecret?.stringData })) {
      environment.set(key, { secret: true });
    }
  }
  for (const variable of container.env ?? []) {
    const mapRef = variable.valueFrom?.configMapKeyRef;
    if (variable.value !== undefined) environment.set(variable.name, { value: variable.value });
    else if (mapRef) {
      environment.set(variable.name, { value: data('ConfigMap', mapRef.name)?.data?.[mapRef.key] });
    } else environment.set(variable.name, { secret: true });
  }
  return environment;
}

function serviceProblems(objects, name, service) {
  const kind = service.restart === 'no' ? 'Job' : 'Deployment';
  const workload = objects.find((object) => object.kind === kind && object.metadata?.name === name);
  if (!workload) return [`compose service ${name} has no ${kind} named ${name}`];
  const [container] = workload.spec?.template?.spec?.containers ?? [];
  const where = `${idOf(workload)} (compose ${name})`;
  const problems = [];
  if (!isDeepStrictEqual(container?.command, service.command)) {
    problems.push(
      `${where}: command ${JSON.stringify(container?.command)} is not compose's ${JSON.stringify(service.command)}`,
    );
  }
  const environment = environmentOf(objects, container ?? {});
  for (const [key, value] of Object.entries(service.environment ?? {})) {
    const got = environment.get(key);
    if (!got) problems.push(`${where}: ${key} is not set (compose sets it)`);
    else if (!String(value).includes('${') && !got.secret && got.value !== String(value)) {
      problems.push(
        `${where}: ${key}=${JSON.stringify(got.value)}, compose has ${JSON.stringify(value)}`,
      );
    }
  }
  if (kind === 'Deployment') {
    const composeProbes = service.healthcheck?.disable !== true;
    if (composeProbes !== Boolean(container?.readinessProbe)) {
      problems.push(
        `${where}: ${composeProbes ? 'no readinessProbe, but compose health-checks it' : 'probed, but compose says it serves no HTTP'}`,
      );
    }
  }
  return problems;
}

/** Where infra/k8s's rendered objects and the compose file disagree, one line each. */
export function composeParityProblems(objects, composeFile) {
  const services = composeAppServices(composeFile);
  const problems = services.flatMap(([name, service]) => serviceProblems(objects, name, service));
  const names = new Set(services.map(([name]) => name));
  for (const workload of objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job')) {
    if (!names.has(workload.metadata.name)) {
      problems.push(`${idOf(workload)}: no compose service of that name runs it`);
    }
  }
  return problems;
}
