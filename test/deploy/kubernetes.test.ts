import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as apps from 'kubernetes-models/apps/v1';
import * as autoscaling from 'kubernetes-models/autoscaling/v2';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as core from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { configurationTable, loadConfig } from '../../src/config.js';

// deploy/kubernetes: every object validates against the Kubernetes OpenAPI schemas (kubernetes-models), every
// file is part of a kustomization, the gateway reads every variable the manifests set and accepts their
// values, and the pieces agree with each other and with the image: probes on the gateway's port, the grace
// period covering the preStop sleep and both shutdown settings, the Dockerfile's user.

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = join(root, 'deploy/kubernetes');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [field: string]: any;
}

function yamlFiles(at: string): string[] {
  return readdirSync(at, { withFileTypes: true }).flatMap((entry) => {
    const path = join(at, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return entry.name.endsWith('.yaml') ? [path] : [];
  });
}

const files = yamlFiles(dir).map((path) => ({
  path: relative(root, path),
  objects: parseAllDocuments(readFileSync(path, 'utf8')).map((doc) => doc.toJS() as K8sObject),
}));
const kustomizations = files.filter((f) => f.path.endsWith('kustomization.yaml'));
const manifests = files.filter((f) => !f.path.endsWith('kustomization.yaml'));
const objects = manifests.flatMap((f) => f.objects.map((object) => ({ path: f.path, object })));

function find(kind: string, name: string, path = 'deploy/kubernetes/base/'): K8sObject {
  const found = objects.find((o) => o.object.kind === kind && o.object.metadata.name === name && o.path.startsWith(path));
  if (!found) throw new Error(`no ${kind} ${name} under ${path}`);
  return found.object;
}

const deployment = find('Deployment', 'reward-gateway');
const pod = deployment.spec.template.spec;
const container = pod.containers[0];
const configMap = find('ConfigMap', 'reward-gateway').data as Record<string, string>;
type Models = Record<string, (new (data: K8sObject) => { validate(): void }) | undefined>;
const MODELS: Record<string, Models> = {
  v1: core as unknown as Models,
  'apps/v1': apps as unknown as Models,
  'autoscaling/v2': autoscaling as unknown as Models,
  'networking.k8s.io/v1': networking as unknown as Models,
  'policy/v1': policy as unknown as Models,
};
const declared = new Set([...configurationTable().matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]));

describe('deploy/kubernetes', () => {
  it('validates every object against the Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThanOrEqual(10);
    for (const { path, object } of objects) {
      const Model = MODELS[object.apiVersion]?.[object.kind];
      expect(Model, `${path}: ${object.apiVersion} ${object.kind}`).toBeDefined();
      expect(() => new Model!(object).validate(), `${path}: ${object.kind} ${object.metadata.name}`).not.toThrow();
    }
  });

  it('a schema violation fails the validation (the check can fail)', () => {
    const { Deployment } = apps;
    const broken = structuredClone(deployment);
    broken.spec.template.spec.containers[0].ports[0].containerPort = '4000';
    expect(() => new Deployment(broken).validate()).toThrow(/containerPort must be integer/);
  });

  it('lists every manifest in a kustomization, and every listed file exists', () => {
    const listed = new Set<string>();
    for (const {
      path,
      objects: [kustomization],
    } of kustomizations) {
      const at = join(root, path, '..');
      const entries = [...(kustomization!.resources ?? []), ...(kustomization!.patches ?? []).map((p: { path: string }) => p.path)];
      for (const entry of entries as string[]) {
        const target = relative(root, join(at, entry));
        if (entry.endsWith('.yaml')) {
          expect(
            manifests.map((m) => m.path),
            `${path}: ${entry}`,
          ).toContain(target);
          listed.add(target);
        } else {
          expect(
            kustomizations.map((k) => k.path),
            `${path}: ${entry}`,
          ).toContain(`${target}/kustomization.yaml`);
        }
      }
    }
    expect(manifests.map((m) => m.path).filter((p) => !listed.has(p))).toEqual([]);
  });

  it('sets only variables the gateway reads, with values it accepts', () => {
    const set = new Map<string, string>();
    for (const { object } of objects.filter((o) => o.object.kind === 'ConfigMap' && o.object.metadata.name === 'reward-gateway')) {
      for (const [name, value] of Object.entries(object.data as Record<string, string>)) set.set(name, value);
    }
    for (const { object } of objects.filter((o) => o.object.kind === 'Deployment' && o.object.metadata.name === 'reward-gateway')) {
      for (const { name } of object.spec.template.spec.containers[0].env ?? []) set.set(name, set.get(name) ?? 'from a Secret');
    }
    expect(set.size).toBeGreaterThan(5);
    expect([...set.keys()].filter((name) => !declared.has(name))).toEqual([]);

    // The base's settings and the Secret's entries (stand-ins here, the key made as the docs say: 32 random bytes)
    // make a configuration the gateway starts with.
    const secrets = mkdtempSync(join(tmpdir(), 'k8s-'));
    try {
      const keysFile = join(secrets, 'api-keys.json');
      writeFileSync(keysFile, JSON.stringify([{ name: 'web', key: randomBytes(32).toString('base64'), scopes: ['rewards:read'] }]));
      expect(() => loadConfig({ ...configMap, REWARD_API_TOKEN: 'stand-in-token', GATEWAY_API_KEYS_FILE: keysFile })).not.toThrow();
    } finally {
      rmSync(secrets, { recursive: true, force: true });
    }
  });

  it('runs three non-root replicas with a read-only root, probes on the gateway port and resources', () => {
    expect(deployment.spec.replicas).toBe(3);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    const port = container.ports.find((p: { name: string }) => p.name === 'http');
    expect(port.containerPort).toBe(Number(configMap.PORT));
    expect(configMap.HOST).toBe('0.0.0.0');
    expect(container.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits).toMatchObject({ memory: '1Gi' });
    // The image's user (Dockerfile) is the one the pod runs as.
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(new RegExp(`^USER ${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}$`, 'm'));
  });

  it('gives a stop time for the preStop sleep, the ready delay and the deadline, with a margin', () => {
    const [command, seconds] = container.lifecycle.preStop.exec.command as string[];
    expect(command).toBe('sleep');
    const needed = Number(seconds) + (Number(configMap.SHUTDOWN_READY_DELAY_MS) + Number(configMap.SHUTDOWN_DEADLINE_MS)) / 1000;
    expect(needed).toBeGreaterThan(Number(seconds));
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(needed + 5);
    // The ready delay outlasts a failed readiness probe, so endpoints drop the replica while it still serves.
    const probe = container.readinessProbe;
    expect(Number(configMap.SHUTDOWN_READY_DELAY_MS)).toBeGreaterThanOrEqual(probe.periodSeconds * probe.failureThreshold * 1000);
  });

  it('points the Service, PodDisruptionBudget, autoscaler and NetworkPolicy at the gateway pods', () => {
    const labels = deployment.spec.template.metadata.labels as Record<string, string>;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    expect(find('Service', 'reward-gateway').spec.selector).toEqual(labels);
    expect(find('Service', 'reward-gateway').spec.ports[0].targetPort).toBe('http');
    expect(find('PodDisruptionBudget', 'reward-gateway').spec.selector.matchLabels).toEqual(labels);
    expect(find('NetworkPolicy', 'reward-gateway').spec.podSelector.matchLabels).toEqual(labels);
    const hpa = find('HorizontalPodAutoscaler', 'reward-gateway');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'reward-gateway' });
    expect(hpa.spec.minReplicas).toBe(deployment.spec.replicas);
    // The Secret is referenced, never shipped; the development overlay's Redis answers REDIS_URL's name.
    expect(objects.filter((o) => o.object.kind === 'Secret')).toEqual([]);
    expect(container.env).toContainEqual({
      name: 'REWARD_API_TOKEN',
      valueFrom: { secretKeyRef: { name: 'reward-gateway', key: 'REWARD_API_TOKEN' } },
    });
    const redis = find('Service', 'reward-gateway-redis', 'deploy/kubernetes/overlays/development/');
    expect(configMap.REDIS_URL).toBe(`redis://${redis.metadata.name}:${redis.spec.ports[0].port}`);
  });
});
