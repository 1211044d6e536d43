import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { parse } from 'yaml';
import { testWith } from '../support/test.js';
import { metricNames } from './promql.js';

// deploy/prometheus/alerts.yml and deploy/grafana/: the rules pass promtool's check and its unit tests
// (alerts.test.yml, one case per alert at least), every alert has its runbook in docs/operations.md, and a
// real Prometheus (Debian's `prometheus` package), scraping a real gateway after some traffic, has every
// metric an alert or a dashboard query reads.

const root = fileURLToPath(new URL('../../', import.meta.url));
const RULES = join(root, 'deploy/prometheus/alerts.yml');
const RULE_TESTS = join(root, 'deploy/prometheus/alerts.test.yml');
const DASHBOARD = join(root, 'deploy/grafana/reward-gateway.json');
const PROMTOOL = '/usr/bin/promtool';
const PROMETHEUS = '/usr/bin/prometheus';

// The gateway's subscription pollers poll at once, so the poll series exist before Prometheus scrapes.
// Two attempts per call, so the faults below need few answers.
const it = testWith({ env: { POLL_INTERVAL_FLOOR_MS: '10', POLL_INTERVAL_MS: '50', UPSTREAM_RETRY_ATTEMPTS: '2' } });

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  annotations?: Record<string, string>;
}
const groups = (parse(readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] }).groups;
const rules = groups.flatMap((g) => g.rules);
const alerts = rules.filter((r) => r.alert);
const recorded = new Set(rules.flatMap((r) => (r.record ? [r.record] : [])));

interface Dashboard {
  panels: { title: string; type: string; targets?: { expr: string }[] }[];
  templating: { list: { query?: string | { query: string } }[] };
}
const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;

/** Metrics the gateway must export: what the rules read (recording rules' own names aside). */
function ruleMetrics(): string[] {
  return [...new Set(rules.flatMap((r) => metricNames(r.expr)))].filter((name) => !recorded.has(name));
}

function dashboardMetrics(): string[] {
  const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  // label_values(<metric>, <label>): only the metric is one.
  const variables = dashboard.templating.list.flatMap((v) => {
    const query = typeof v.query === 'string' ? v.query : v.query?.query;
    const metric = query && /^label_values\(([^,]+),/.exec(query)?.[1];
    return metric ? [metric.trim()] : [];
  });
  return [...new Set([...queries.flatMap(metricNames), ...variables])];
}

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

describe('alert rules', () => {
  it('pass promtool check rules', () => {
    const { code, output } = run(PROMTOOL, ['check', 'rules', RULES]);
    expect(output).toContain('SUCCESS');
    expect(code).toBe(0);
  });

  it('pass their unit tests (promtool test rules), which cover every alert', () => {
    const tested = new Set(
      (parse(readFileSync(RULE_TESTS, 'utf8')) as { tests: { alert_rule_test?: { alertname: string }[] }[] }).tests.flatMap((t) =>
        (t.alert_rule_test ?? []).map((a) => a.alertname),
      ),
    );
    expect(alerts.map((a) => a.alert).filter((name) => !tested.has(name!))).toEqual([]);
    const { code, output } = run(PROMTOOL, ['test', 'rules', RULE_TESTS]);
    expect(output).toContain('SUCCESS');
    expect(code).toBe(0);
  });

  it('each have a summary and a runbook section in docs/operations.md', () => {
    const operations = readFileSync(join(root, 'docs/operations.md'), 'utf8');
    // GitHub's anchors: the heading in lower case.
    const anchors = new Set(
      [...operations.matchAll(/^#+ (.+)$/gm)].map(([, heading]) =>
        heading!
          .trim()
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    expect(alerts.length).toBeGreaterThanOrEqual(10);
    for (const alert of alerts) {
      expect(alert.annotations?.summary, alert.alert).toBeTruthy();
      const [file, anchor] = (alert.annotations?.runbook_url ?? '').split('#');
      expect(file, alert.alert).toBe('docs/operations.md');
      expect(anchors.has(anchor!), `${alert.alert}: no heading for #${anchor}`).toBe(true);
    }
  });
});

describe('a real Prometheus scraping a gateway', () => {
  it('has every metric the alert rules and the Grafana dashboard read', { timeout: 60_000 }, async ({ gateway }) => {
    const wanted = [...new Set([...ruleMetrics(), ...dashboardMetrics()])].sort();
    // The extraction itself: names from the rules and the dashboard, never an empty list that passes.
    expect(wanted).toEqual(expect.arrayContaining(['reward_gateway_redis_up', 'reward_gateway_live_polls_total', 'process_resident_memory_bytes']));
    expect(dashboard.panels.filter((p) => p.type !== 'row' && !p.targets?.length)).toEqual([]);

    // Traffic that creates every labelled series: operations that succeed and fail (timed in every bucket),
    // upstream calls, a create recovered after its answers were lost, and a subscription whose poller fails
    // once, then polls.
    const url = await gateway.listen();
    const { control } = gateway.sandbox;
    expect((await gateway.gql('query Viewer { viewer { username } }')).body.errors).toBeUndefined();
    expect((await gateway.gql('query Bad { nope }')).body.errors).toHaveLength(1);
    await gateway.gql('{ regions { id } }');
    await gateway.gql('{ campaigns(refs: ["p-1", "p-2"]) { id } }');
    await control.fault({ route: 'POST /campaign', status: 503, rate: 1, after: true });
    const created = await gateway.gql(`mutation {
      createCampaign(input: { id: "prometheus-1", priceInCents: 2500, reward: { brand: "sbxcoffeeus" },
        contacts: [{ email: "ada@example.com" }], subject: "Thanks", message: "Thanks" }) { __typename }
    }`);
    expect(created.body.data).toEqual({ createCampaign: { __typename: 'CreateCampaignPayload' } });
    await control.clearFaults();
    await control.fault({ route: 'GET /funds', status: 503, rate: 1, count: 2 });
    const listened = (hook: 'onPoll' | 'onPollError') =>
      new Promise<void>((resolve) => {
        const stop = gateway.gateway.live.listen({
          [hook]: () => {
            stop();
            resolve();
          },
        });
      });
    const failed = listened('onPollError');
    const polled = listened('onPoll');
    const subscription = new AbortController();
    const stream = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription Balances { fundsChanged { funds { balances { currency } } } }' }),
      signal: subscription.signal,
    });
    expect(stream.status).toBe(200);
    await failed;
    await polled;

    const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
    const port = await freePort();
    writeFileSync(
      join(dir, 'prometheus.yml'),
      JSON.stringify({
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        // The rules too: a real server loads them as they ship.
        rule_files: [RULES],
        scrape_configs: [{ job_name: 'reward-gateway', static_configs: [{ targets: [new URL(url).host] }] }],
      }),
    );
    const prometheus = spawn(
      PROMETHEUS,
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    prometheus.stderr.on('data', (d) => (log += d));
    const exited = new Promise((resolve) => prometheus.on('exit', resolve));
    try {
      const api = async (path: string) => {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/${path}`).catch(() => null);
        return res?.ok ? ((await res.json()) as { data: any }).data : null;
      };
      // The first scrape of the target, which comes after all the traffic above.
      for (;;) {
        if (prometheus.exitCode !== null) throw new Error(`prometheus exited: ${log}`);
        const targets = await api('targets');
        const target = targets?.activeTargets?.[0];
        if (target?.health === 'up') break;
        if (target?.health === 'down') throw new Error(`scrape failed: ${target.lastError}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const rulesLoaded = await api('rules');
      expect(rulesLoaded.groups.flatMap((g: { rules: unknown[] }) => g.rules)).toHaveLength(rules.length);

      const exported = new Set<string>(await api('label/__name__/values'));
      const missing = wanted.filter((name) => !exported.has(name));
      expect(missing).toEqual([]);
    } finally {
      subscription.abort();
      prometheus.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Fails the run rather than skipping: `.ci/run` installs Debian's prometheus package when promtool is missing.
if (!existsSync(PROMTOOL) || !existsSync(PROMETHEUS)) {
  throw new Error(`${PROMTOOL} and ${PROMETHEUS} are needed: sudo apt-get install prometheus`);
}
