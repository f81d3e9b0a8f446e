/*
 * Steps of the example pipelines: ordinary async functions, registered on the worker as Temporal
 * activities. Each receives the previous step's result (the first receives the run's args).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readEnv } from 'temporal-flow';

export interface HealthSample {
  host: string;
  loadAverage: number;
  freeMemoryMb: number;
  at: string;
}

/** Health check, step 1: samples this machine. */
export async function sampleHost(): Promise<HealthSample> {
  return {
    host: os.hostname(),
    loadAverage: os.loadavg()[0] ?? 0,
    freeMemoryMb: Math.round(os.freemem() / 1024 / 1024),
    at: new Date().toISOString(),
  };
}

/** Health check, step 2: turns the sample into a verdict. */
export async function judgeHealth(sample: HealthSample): Promise<{ healthy: boolean; sample: HealthSample }> {
  return { healthy: sample.freeMemoryMb > 256 && sample.loadAverage < os.cpus().length * 4, sample };
}

export interface Row {
  region: string;
  orders: number;
  revenue: number;
}

/** ETL, extract: produces the day's rows for a region (a stand-in for a database query). */
export async function extract(region: string): Promise<Row[]> {
  const seed = [...region].reduce((n, c) => n + c.charCodeAt(0), 0);
  return Array.from({ length: 5 }, (_, i) => ({
    region,
    orders: (seed + i * 7) % 50,
    revenue: ((seed * (i + 3)) % 997) / 10,
  }));
}

/** ETL, transform: aggregates the rows. */
export async function transform(rows: Row[]): Promise<{ region: string; orders: number; revenue: number }> {
  return {
    region: rows[0]?.region ?? 'unknown',
    orders: rows.reduce((n, r) => n + r.orders, 0),
    revenue: Math.round(rows.reduce((n, r) => n + r.revenue, 0) * 100) / 100,
  };
}

const outputDir = path.join(readEnv().home, 'examples');

/** ETL, load: writes the aggregate to `<TFLOW_HOME>/examples/<region>.json` and returns the file's path. */
export async function load(summary: { region: string }): Promise<string> {
  await mkdir(outputDir, { recursive: true });
  const file = path.join(outputDir, `${summary.region}.json`);
  await writeFile(file, JSON.stringify(summary, null, 2));
  return file;
}

/** ETL, compensation of `load`: removes the file it wrote. */
export async function unload(summary: { region: string }): Promise<void> {
  await rm(path.join(outputDir, `${summary.region}.json`), { force: true });
}

/** Reads back what `load` wrote (used by the README's walkthrough). */
export async function readLoaded(region: string): Promise<unknown> {
  return JSON.parse(await readFile(path.join(outputDir, `${region}.json`), 'utf8'));
}

/** Publishing, after a human approved (the approval signal's payload is this step's input). */
export async function publish(approval: { by: string; region: string }): Promise<string> {
  return `${approval.region} report published, approved by ${approval.by}`;
}

export const steps = { sampleHost, judgeHealth, extract, transform, load, unload, publish };
