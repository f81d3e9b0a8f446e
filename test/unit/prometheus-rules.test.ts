import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readEnv } from '../../src/config';
import { APT_TIMEOUT_MS } from '../helpers/find-tool';
import { ensurePromtool } from '../helpers/promtool';

/*
 * deploy/prometheus-rules.yml checked by Prometheus's own promtool (found or unpacked by
 * test/helpers/promtool.ts; no promtool fails this file with the reason, never a skip): `check rules`
 * parses it, and `test rules` runs deploy/prometheus-rules.test.yml, whose input series make every alert
 * fire where it should and stay quiet where it should not. Copies with a changed `for:` or expression
 * must fail `test rules`, so that the rule tests cannot pass whatever the rules say.
 */
const run = promisify(execFile);
const deploy = path.resolve(__dirname, '../../deploy');
const RULES = 'prometheus-rules.yml';
const TESTS = 'prometheus-rules.test.yml';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  [key: string]: unknown;
}
interface RulesFile {
  groups: { name: string; rules: Rule[] }[];
}
interface AlertTest {
  eval_time: string;
  alertname: string;
  exp_alerts: unknown[];
}
interface TestsFile {
  tests: { name: string; alert_rule_test?: AlertTest[] }[];
}

let promtool: string;
let scratch: string;

beforeAll(
  async () => {
    const env = readEnv();
    promtool = (await ensurePromtool({ explicitPath: env.promtool, searchPath: env.path })).path;
    scratch = await mkdtemp(path.join(os.tmpdir(), 'tflow-rules-'));
  },
  3 * APT_TIMEOUT_MS + 60_000,
);
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** promtool's exit code and output (it prints test failures on stderr, results on stdout). */
async function promtoolSays(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(promtool, args, { timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, output: (e.stdout ?? '') + (e.stderr ?? '') };
  }
}

const readYaml = async <T>(file: string): Promise<T> => parse(await readFile(file, 'utf8')) as T;
const rulesFile = () => readYaml<RulesFile>(path.join(deploy, RULES));
const alerts = async () => (await rulesFile()).groups.flatMap((g) => g.rules);

/**
 * `promtool test rules` on the rule tests beside a copy of the rules (written back through the YAML
 * library), the alert `name` changed by `change` (which must change it); no `name`: the copy unchanged.
 */
async function testRulesCopy(
  name?: string,
  change?: (rule: Rule) => void,
): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(path.join(scratch, 'copy-'));
  const rules = await rulesFile();
  if (name) {
    const rule = rules.groups.flatMap((g) => g.rules).find((r) => r.alert === name);
    if (!rule) throw new Error(`no alert ${name} in ${RULES}`);
    const before = JSON.stringify(rule);
    change?.(rule);
    if (JSON.stringify(rule) === before) throw new Error(`the change left ${name} as it was`);
  }
  await writeFile(path.join(dir, RULES), stringify(rules));
  await writeFile(path.join(dir, TESTS), await readFile(path.join(deploy, TESTS), 'utf8'));
  return promtoolSays(['test', 'rules', path.join(dir, TESTS)]);
}

/** A Prometheus duration of whole minutes (`10m`, `1h`) plus `minutes`. */
function plusMinutes(duration: string, minutes: number): string {
  const m = /^(\d+)([mh])$/.exec(duration);
  if (!m) throw new Error(`unexpected for: ${duration}`);
  return `${Number(m[1]) * (m[2] === 'h' ? 60 : 1) + minutes}m`;
}

describe('deploy/prometheus-rules.yml under promtool', () => {
  it('promtool check rules: every rule parses', async () => {
    const { code, output } = await promtoolSays(['check', 'rules', path.join(deploy, RULES)]);
    expect(output).toContain(`SUCCESS: ${(await alerts()).length} rules found`);
    expect(code).toBe(0);
  });

  it('promtool test rules: every alert fires and stays quiet as the rule tests expect', async () => {
    const { code, output } = await promtoolSays(['test', 'rules', path.join(deploy, TESTS)]);
    expect(output).toContain('SUCCESS');
    expect(output).not.toContain('FAILED');
    expect(code).toBe(0);
  });

  it('the rule tests check every alert both firing and quiet', async () => {
    const { tests } = await readYaml<TestsFile>(path.join(deploy, TESTS));
    const evals = tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const { alert } of await alerts()) {
      const mine = evals.filter((e) => e.alertname === alert);
      expect(
        mine.some((e) => e.exp_alerts.length > 0),
        `${alert} is never expected to fire`,
      ).toBe(true);
      expect(
        mine.some((e) => e.exp_alerts.length === 0),
        `${alert} is never expected to stay quiet`,
      ).toBe(true);
    }
  });

  it('a copy of the rules written back unchanged passes (what the copies below fail for is their change)', async () => {
    const { code, output } = await testRulesCopy();
    expect(output).toContain('SUCCESS');
    expect(code).toBe(0);
  });

  it("promtool check rules: every query of the Grafana dashboard parses (as a recording rule's)", async () => {
    const dashboard = JSON.parse(await readFile(path.join(deploy, 'grafana-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const queries = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    const file = path.join(await mkdtemp(path.join(scratch, 'dashboard-')), 'queries.yml');
    const rules = queries.map((expr, i) => ({ record: `tflow_dashboard_query_${i}`, expr }));
    await writeFile(file, stringify({ groups: [{ name: 'dashboard', rules }] }));
    const { code, output } = await promtoolSays(['check', 'rules', file]);
    expect(output).toContain(`SUCCESS: ${queries.length} rules found`);
    expect(code).toBe(0);
  });

  it('promtool check rules fails for an expression that does not parse', async () => {
    const dir = await mkdtemp(path.join(scratch, 'broken-'));
    const rules = await rulesFile();
    const first = rules.groups[0]!.rules[0]!;
    const unbalanced = first.expr.replace(/\)\s*>/, ' >');
    expect(unbalanced).not.toBe(first.expr);
    first.expr = unbalanced;
    await writeFile(path.join(dir, RULES), stringify(rules));
    const { code, output } = await promtoolSays(['check', 'rules', path.join(dir, RULES)]);
    expect(code).toBe(1);
    expect(output).toContain('FAILED');
  });

  it('promtool test rules fails for each `for:` one minute shorter or longer', async () => {
    const held = (await alerts()).filter((r) => r.for);
    expect(held.length).toBeGreaterThanOrEqual(5);
    for (const rule of held) {
      for (const minutes of [-1, 1]) {
        const changed = plusMinutes(rule.for!, minutes);
        const { code, output } = await testRulesCopy(rule.alert, (r) => (r.for = changed));
        expect(code, `${rule.alert} with for: ${changed} passed the rule tests`).toBe(1);
        expect(output).toContain(`alertname: ${rule.alert},`);
      }
    }
  });

  it('promtool test rules fails for a `for:` added to an alert that fires at once', async () => {
    const immediate = (await alerts()).filter((r) => !r.for);
    expect(immediate.length).toBeGreaterThanOrEqual(3);
    for (const rule of immediate) {
      const { code, output } = await testRulesCopy(rule.alert, (r) => (r.for = '1m'));
      expect(code, `${rule.alert} with for: 1m passed the rule tests`).toBe(1);
      expect(output).toContain(`alertname: ${rule.alert},`);
    }
  });

  it('promtool test rules fails for a wrong threshold or label', async () => {
    const lag = await testRulesCopy('TflowScheduleLagHigh', (r) => {
      r.expr = r.expr.replace('> 60', '> 600');
    });
    expect(lag.code).toBe(1);
    expect(lag.output).toContain('alertname: TflowScheduleLagHigh, time: 11m');
    const failing = await testRulesCopy('TflowRunsFailing', (r) => {
      r.expr = r.expr.replace('status="failed"', 'status="succeeded"');
    });
    expect(failing.code).toBe(1);
    expect(failing.output).toContain('alertname: TflowRunsFailing,');
  });
});
